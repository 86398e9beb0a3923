#pragma once

#include "data/ComparisonCurves.h"

#include "analysis/Comparison.h"

#include <QFutureWatcher>
#include <QStringList>
#include <QWidget>
#include <atomic>
#include <memory>

class QChartView;
class QAbstractAxis;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ts::gui {

class ErrorReporter;

// Strategy comparison: choose datasets, strategies, seeds and budgets; core's Comparison runs every
// strategy x dataset x seed in the background across the cores; the chart shows the mean fraction of
// optimum per strategy with a +-1 standard deviation band, and the table the fraction at each budget and the
// methodology score. Chart and table are built from the same finished runs (a cancelled comparison keeps
// only those, and says which strategy x dataset pairs were cut off); the progress bar ends on the number of
// finished runs.
class ComparisonView : public QWidget {
    Q_OBJECT
public:
    struct Outcome {
        CompareResult result;
        ComparisonCurves curves;
        std::vector<std::string> datasetNames;
        QString error;
        CompareSettings settings; // what was asked for (strategies, budgets, seeds)
        bool cancelled = false;
    };

    ComparisonView(ErrorReporter& errors, QWidget* parent = nullptr);
    ~ComparisonView() override;

    // Picks datasets (paths), strategies, seeds, budgets ("25,50,100") and the space mode in the form.
    void configure(const QStringList& datasets, const QStringList& strategies, int seeds,
                   const QString& budgets, SpaceMode mode = SpaceMode::Product);
    // Starts the comparison of what the form says; false (with an error reported) when the input is bad.
    bool start();
    void cancel();
    bool isRunning() const { return m_watcher.isRunning(); }

    QTableWidget* scoreTable() const { return m_table; }
    QChartView* chart() const { return m_chart; }
    const Outcome& outcome() const { return m_outcome; }
    QProgressBar* progressBar() const { return m_progress; }
    QString summaryText() const;
    // Draws an outcome in the chart and the table (what a finished comparison hands over).
    void display(Outcome outcome);

signals:
    void finished(bool ok);

private:
    void addDatasetFile();
    void showOutcome();
    void fillTable();
    QStringList cutOffRuns() const;
    void addDataset(const QString& path, bool checked);

    ErrorReporter& m_errors;
    QListWidget* m_datasets;
    QListWidget* m_strategies;
    QSpinBox* m_seeds;
    QLineEdit* m_budgets;
    QComboBox* m_mode;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_summary;
    QChartView* m_chart;
    QAbstractAxis* m_x;
    QAbstractAxis* m_y;
    QTableWidget* m_table;

    QFutureWatcher<Outcome> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
    Outcome m_outcome;
};

} // namespace ts::gui
