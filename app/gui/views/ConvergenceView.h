#pragma once

#include "views/RunView.h"

#include <QList>
#include <vector>

class QChartView;
class QCheckBox;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QAbstractAxis;

namespace ts::gui {

class PointPicker;

// Best-so-far vs evaluations and vs wall time. Each run is a series; earlier runs stay for overlay until
// cleared, but only runs comparable with the current one (RunData::comparisonKey: same dataset, or same
// kernel, device and problem size) are drawn and give the axes their range; the others are hidden, and a
// note says how many. On a replay dataset the space's optimum is a dashed reference line. Log scale toggle
// on y. A left click on a corner of the current run's curve selects the trial that made that improvement
// (RunData::select); the selected trial is marked on the curve at its evaluation.
class ConvergenceView : public RunView {
    Q_OBJECT
public:
    explicit ConvergenceView(RunData& data, QWidget* parent = nullptr);

    QChartView* evaluationsChart() const { return m_views[0]; }
    QChartView* timeChart() const { return m_views[1]; }
    // The current run's series (index 0: vs evaluations, 1: vs time).
    QLineSeries* currentSeries(int chart) const;
    // Where the selected trial is marked (chart 0: vs evaluations, 1: vs time), in axis coordinates; empty
    // when nothing is selected or the curve has no point at its evaluation yet.
    QList<QPointF> selectionMark(int chart) const;
    int runCount() const { return static_cast<int>(m_runs.size()); }
    // Runs drawn (the current one and the comparable earlier ones).
    int visibleRunCount() const;
    QString overlayNote() const;
    void setLogScale(bool log);
    void clearEarlierRuns();

protected:
    void refresh() override;

private:
    struct Run {
        QLineSeries* series[2];
        QString key; // RunData::comparisonKey of the run
    };
    void showComparableRuns();
    void startRun();
    void rebuildYAxes();
    void updateRanges();
    void markSelection();
    void addPickable(int chart, PointPicker& picker) const;

    QChartView* m_views[2];
    QAbstractAxis* m_x[2];
    QAbstractAxis* m_y[2] = {nullptr, nullptr};
    QLineSeries* m_optimum[2];
    QScatterSeries* m_selection[2];
    QCheckBox* m_log;
    QLabel* m_note;
    std::vector<Run> m_runs;
    bool m_logScale = false;
};

} // namespace ts::gui
