#pragma once

#include "data/WorkloadHistory.h"
#include "running/WorkloadRunner.h"

#include "workload/WorkloadPlan.h"

#include <QWidget>
#include <optional>
#include <vector>

class QAbstractAxis;
class QAreaSeries;
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTimer;

namespace ts::gui {

class PlotLegend;

class ErrorReporter;
class WorkloadTaskModel;

// A whole workload tuned within one budget: a form (the demo replay workload or a workload file, scheduler,
// budget, seed), start / pause / resume / stop, progress and ETA, the task table (sortable; selecting a task
// asks for its session in every other view through taskSelected), the weighted end-to-end latency against
// total trials (each run a series, earlier runs kept for overlay; the oracle dashed where known) and the
// trials spent per task (stacked). The workload runs on a WorkloadRunner's worker thread; the charts redraw
// from a 10 Hz timer while it runs.
class WorkloadView : public QWidget {
    Q_OBJECT
public:
    WorkloadView(ErrorReporter& errors, QWidget* parent = nullptr);
    ~WorkloadView() override;

    void setDatabasePath(const QString& path) { m_databasePath = path; }

    // The form's plan: the chosen source with the form's scheduler, budget and seed. Throws ts::Error naming
    // the file that cannot be read.
    WorkloadPlan formPlan() const;
    // Starts the form's plan; errors go to the reporter. Returns whether it started.
    bool start();
    // Starts this plan as it is (scheduler, budget and seed its own); errors go to the reporter.
    bool startWorkload(const WorkloadPlan& plan);
    // Sets the form (scheduler by registry name).
    void configure(const QString& scheduler, int budget, int seed);
    // Adds a workload file to the source list and chooses it.
    void addWorkloadFile(const QString& path);

    WorkloadRunner& runner() { return m_runner; }
    WorkloadTaskModel* taskModel() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* taskTable() const { return m_table; }
    QChartView* endToEndChart() const { return m_endToEndView; }
    QChartView* trialsChart() const { return m_trialsView; }
    // The current run's end-to-end series; the oracle's dashed line; the runs kept (the current one last).
    QLineSeries* currentEndToEnd() const { return m_runs.empty() ? nullptr : m_runs.back().series; }
    QLineSeries* oracleSeries() const { return m_oracle; }
    int runCount() const { return static_cast<int>(m_runs.size()); }
    const std::vector<QAreaSeries*>& trialAreas() const { return m_areas; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* etaLabel() const { return m_eta; }
    QPushButton* startButton() const { return m_start; }
    QPushButton* pauseButton() const { return m_pause; }
    QPushButton* resumeButton() const { return m_resume; }
    QPushButton* stopButton() const { return m_stop; }
    std::optional<std::int64_t> workloadId() const { return m_runner.workloadId(); }

    // Redraws the charts now (the timer does it while a workload runs).
    void refreshNow();

signals:
    void started(qint64 workloadId);
    // stop: core's WorkloadStop name, or "failed".
    void finished(const QString& stop);
    // A task was selected in the table and has a session: show it in every view.
    void taskSelected(qint64 sessionId);

private:
    struct Run {
        WorkloadHistory history;
        QLineSeries* series = nullptr;
    };
    QWidget* buildForm();
    void buildCharts(QWidget* parent, QWidget*& endToEnd, QWidget*& trials);
    void chooseWorkloadFile();
    void startRun(const WorkloadPlan& plan);
    void rebuildAreas(const WorkloadPlan& plan);
    void onRound(const WorkloadUpdate& update);
    void onFinished(const QString& stop, const QString& error);
    void onSelectionChanged();
    void updateButtons();
    void updateProgress();

    ErrorReporter& m_errors;
    QString m_databasePath;
    WorkloadRunner m_runner;
    WorkloadTaskModel* m_model;
    QSortFilterProxyModel* m_proxy;
    std::optional<WorkloadProgress> m_last;
    bool m_dirty = false;
    QTimer* m_timer;

    QComboBox* m_source;
    QComboBox* m_scheduler;
    QSpinBox* m_budget;
    QSpinBox* m_seed;
    QPushButton* m_start;
    QPushButton* m_pause;
    QPushButton* m_resume;
    QPushButton* m_stop;
    QProgressBar* m_progress;
    QLabel* m_eta;
    QLabel* m_summary;
    QTableView* m_table;

    QChartView* m_endToEndView;
    PlotLegend* m_endToEndLegend;
    QAbstractAxis* m_endToEndX;
    QAbstractAxis* m_endToEndY;
    QLineSeries* m_oracle;
    std::vector<Run> m_runs;
    QChartView* m_trialsView;
    QAbstractAxis* m_trialsX;
    QAbstractAxis* m_trialsY;
    std::vector<QAreaSeries*> m_areas;
};

} // namespace ts::gui
