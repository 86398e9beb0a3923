#pragma once

#include "views/RunView.h"

#include "session/ModelQualityTracker.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <vector>

class QAbstractAxis;
class QChartView;
class QLabel;
class QLineSeries;
class QScatterSeries;

namespace ts::gui {

class PlotLegend;
class PointPicker;

// The cost model's quality: predicted vs measured time (log-log, colour by batch, the ideal diagonal) and
// Spearman rank correlation and top-k recall over time. Predictions are the ones the strategy made before
// measuring, stored with each trial, and the quality curves are computed here from them (core's
// ModelQualityTracker, fed batch by batch), so a session reopened from the records draws them as a live one
// does. Strategies without a model leave the view empty with a note saying so. On a GPU the static cost
// model's estimates (stored by the cuda backend with each config, calibrated to the measured scale) are
// drawn beside them, with their Spearman correlation. The legend lists what is drawn: a batch range per
// colour in use, the static model only when it has points. A left click on a point of the scatter selects
// its trial (RunData::select), which the scatter rings in red.
class CostModelView : public RunView {
    Q_OBJECT
public:
    static constexpr int kBatchGroups = 6;   // colours from the first to the last batch
    static constexpr int kMaxScatter = 1500; // scatter markers are graphics items: keep them few

    explicit CostModelView(RunData& data, QWidget* parent = nullptr);

    QChartView* scatterChart() const { return m_scatterView; }
    QChartView* qualityChart() const { return m_qualityView; }
    // Points drawn in the scatter (all groups) and in the quality series.
    int scatterPointCount() const;
    int staticPointCount() const;
    QString summaryText() const;
    int qualityPointCount() const;
    QString restrictionsText() const;
    // The names of the legend's visible entries, in order.
    QStringList legendEntries() const;
    // Where the selected trial is ringed in the scatter (its prediction, its static estimate), in data
    // coordinates (ms); empty when it has neither.
    QList<QPointF> selectionMarks() const;

protected:
    void refresh() override;

private:
    void feedQuality();
    static bool strategyHasModel(const QString& strategy);
    QString summary(qsizetype predicted) const;
    // The scatter points of trial `row` in data coordinates (ms): its prediction and its static estimate.
    QList<QPointF> scatterPoints(std::size_t row) const;
    void markSelection();
    void addPickable(PointPicker& picker) const;

    QChartView* m_scatterView;
    PlotLegend* m_legend;
    QChartView* m_qualityView;
    QAbstractAxis* m_px;
    QAbstractAxis* m_py;
    QAbstractAxis* m_qx;
    QAbstractAxis* m_qy;
    std::vector<QScatterSeries*> m_groups;
    QScatterSeries* m_static;
    QScatterSeries* m_selection;
    double m_staticScale = 1.0; // calibration of the static estimates last drawn
    QLineSeries* m_diagonal;
    QLineSeries* m_spearman;
    QLineSeries* m_recall;
    QLabel* m_summary;
    QLabel* m_restrictions;         // the strategy's learned restrictions, when it reported any
    qsizetype m_drawnScatter = -1;  // predicted points last drawn
    std::size_t m_drawnQuality = 0; // quality points last drawn
    ModelQualityTracker m_quality;  // over the run's trials [0, m_fed), whole batches only
    std::size_t m_fed = 0;
    QString m_modelOf; // the strategy m_strategyHasModel was looked up for
    bool m_strategyHasModel = true;
};

} // namespace ts::gui
