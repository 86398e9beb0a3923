#pragma once

#include "views/RunView.h"
#include "analysis/ParameterImportance.h"

#include <QFutureWatcher>
#include <QList>
#include <QStringList>
#include <optional>
#include <string>
#include <vector>

class QBarCategoryAxis;
class QBarSet;
class QChartView;
class QHorizontalBarSeries;
class QLabel;
class QValueAxis;

namespace ts::gui {

// Parameter importance of the current run (core's ParameterImportance, whose method the view names): a
// horizontal bar per parameter that varies among the run's successful trials, the most important at the
// top, in percent of the variance its main effect explains. The analysis fits a model, so it runs on a pool
// thread, once per change in the number of usable trials (a live run is analysed again when the refresh
// timer finds new trials and the previous analysis has finished); results of a run that was reset meanwhile
// are dropped.
class ParameterImportanceView : public RunView {
    Q_OBJECT
public:
    explicit ParameterImportanceView(RunData& data, QWidget* parent = nullptr);
    ~ParameterImportanceView() override;

    QChartView* chart() const { return m_chartView; }
    // What the bars show, top bar first: parameter names and their importance in percent.
    QStringList rankedParameters() const;
    QList<qreal> barValues() const;
    QString noteText() const;
    // The result the bars show; nullopt while there is none (too few trials, or not analysed yet).
    const std::optional<ImportanceResult>& result() const { return m_result; }

signals:
    // The bars (or the note saying why there are none) now show the run's trials as last analysed.
    void importanceShown();

protected:
    void refresh() override;

private:
    struct Outcome {
        std::optional<ImportanceResult> result;
        std::string error;
    };

    void onReset();
    void showOutcome();
    void draw(const ImportanceResult& result);
    void clearBars();

    QLabel* m_note;
    QChartView* m_chartView;
    QHorizontalBarSeries* m_series;
    QBarSet* m_bars;
    QBarCategoryAxis* m_categories;
    QValueAxis* m_values;
    QFutureWatcher<Outcome> m_watcher;
    std::optional<ImportanceResult> m_result;
    std::vector<ParameterEffect> m_shown; // the bars, top first
    std::uint64_t m_generation = 0;       // bumped by every reset of the run
    std::uint64_t m_analysedGeneration = ~0ull;
    std::size_t m_analysedTrials = 0; // usable trials of the last analysis started
    // Bumped by every reset and by every note or analysis refresh() starts: an analysis whose request is no
    // longer the latest is dropped when it ends.
    std::uint64_t m_request = 0;
    std::uint64_t m_flight = 0; // the request of the analysis in flight
};

} // namespace ts::gui
