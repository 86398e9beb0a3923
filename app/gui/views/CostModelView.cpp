#include "views/CostModelView.h"

#include "charts/ChartClickPicker.h"
#include "charts/ChartSupport.h"
#include "charts/PlotLegend.h"
#include "charts/PointPicker.h"
#include "data/RunData.h"
#include "hardware/StaticEstimateFit.h"
#include "strategies/StrategyRegistry.h"
#include "window/AdaptiveSplitter.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>

namespace ts::gui {

CostModelView::CostModelView(RunData& data, QWidget* parent) : RunView(data, parent) {
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_restrictions = new QLabel(this);
    m_restrictions->setWordWrap(true);
    m_restrictions->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_restrictions->hide();
    layout->addWidget(m_restrictions);
    auto* splitter = new AdaptiveSplitter(this);
    layout->addWidget(splitter, 1);

    m_scatterView = charts::makeChartView(tr("Predicted vs measured"), splitter);
    QChart* scatter = m_scatterView->chart();
    m_px = charts::makeAxis(tr("measured (ms)"), true);
    m_py = charts::makeAxis(tr("predicted"), true);
    scatter->addAxis(m_px, Qt::AlignBottom);
    scatter->addAxis(m_py, Qt::AlignLeft);
    m_diagonal = new QLineSeries;
    m_diagonal->setName(tr("ideal"));
    QPen pen(Qt::gray);
    pen.setStyle(Qt::DashLine);
    m_diagonal->setPen(pen);
    scatter->addSeries(m_diagonal);
    m_diagonal->attachAxis(m_px);
    m_diagonal->attachAxis(m_py);
    for (int g = 0; g < kBatchGroups; ++g) {
        auto* series = new QScatterSeries;
        series->setMarkerSize(6.0);
        // Early batches blue, late batches red.
        QColor colour = QColor::fromHsvF(0.66 * (1.0 - g / double(kBatchGroups - 1)), 0.85, 0.85);
        series->setColor(colour);
        series->setBorderColor(Qt::transparent);
        scatter->addSeries(series);
        series->attachAxis(m_px);
        series->attachAxis(m_py);
        m_groups.push_back(series); // named by refresh after the batches it holds
    }
    m_static = new QScatterSeries;
    m_static->setName(tr("static model (calibrated)"));
    m_static->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_static->setMarkerSize(5.0);
    m_static->setColor(QColor(128, 128, 128)); // reads on light and dark backgrounds
    m_static->setBorderColor(Qt::transparent);
    scatter->addSeries(m_static);
    m_static->attachAxis(m_px);
    m_static->attachAxis(m_py);
    m_selection = new QScatterSeries; // unnamed: no legend entry
    m_selection->setMarkerSize(12.0);
    m_selection->setColor(Qt::transparent);
    m_selection->setBorderColor(Qt::red);
    scatter->addSeries(m_selection);
    m_selection->attachAxis(m_px);
    m_selection->attachAxis(m_py);
    new ChartClickPicker(m_scatterView, data, [this](PointPicker& picker) { addPickable(picker); });
    // A batch range per colour, over the plot's empty top left corner: beside it, it took a third of the
    // scatter in a narrow dock.
    m_legend = new PlotLegend(m_scatterView);
    splitter->addWidget(m_scatterView);

    m_qualityView = charts::makeChartView(tr("Model quality on unseen configs"), splitter);
    QChart* quality = m_qualityView->chart();
    m_qx = charts::makeAxis(tr("evaluations"), false);
    m_qy = charts::makeAxis(tr("value"), false);
    quality->addAxis(m_qx, Qt::AlignBottom);
    quality->addAxis(m_qy, Qt::AlignLeft);
    charts::setRangeIfChanged(m_qy, -1.0, 1.0);
    m_spearman = new QLineSeries;
    m_spearman->setName(tr("Spearman rank correlation"));
    m_recall = new QLineSeries;
    m_recall->setName(tr("top-k recall"));
    for (QLineSeries* s : {m_spearman, m_recall}) {
        quality->addSeries(s);
        s->attachAxis(m_qx);
        s->attachAxis(m_qy);
    }
    splitter->addWidget(m_qualityView);

    connect(&data, &RunData::resetDone, this, [this] {
        m_quality = {};
        m_fed = 0;
        markDirty();
    });
    connect(&data, &RunData::trialsAppended, this, &CostModelView::markDirty);
    connect(&data, &RunData::restrictionsChanged, this, &CostModelView::markDirty);
    connect(&data, &RunData::selectionChanged, this, &CostModelView::markSelection);
    // The end of a run closes its last batch, which only then gets its quality point (the window's refresh
    // timer has stopped by then).
    connect(&data, &RunData::statusChanged, this, [this] {
        markDirty();
        refreshIfNeeded();
    });
}

int CostModelView::scatterPointCount() const {
    int n = 0;
    for (QScatterSeries* s : m_groups)
        n += static_cast<int>(s->count());
    return n;
}

int CostModelView::staticPointCount() const {
    return static_cast<int>(m_static->count());
}

QString CostModelView::summaryText() const {
    return m_summary->text();
}

QStringList CostModelView::legendEntries() const {
    QStringList names;
    for (QLegendMarker* marker : m_scatterView->chart()->legend()->markers())
        if (marker->isVisible())
            names << marker->label();
    return names;
}

// Feeds the tracker the trials of every finished batch (all of them once the run is over), as the live
// session does after each batch.
void CostModelView::feedQuality() {
    const auto& trials = data().trials();
    const bool over = data().info().status != "running";
    while (m_fed < trials.size()) {
        std::size_t end = m_fed;
        while (end < trials.size() && trials[end].batch == trials[m_fed].batch)
            ++end;
        if (end == trials.size() && !over)
            return; // the last batch may still grow
        for (std::size_t row = m_fed; row < end; ++row)
            m_quality.trialFinished(trials[row]);
        SessionProgress progress;
        progress.evaluations = static_cast<std::int64_t>(end);
        m_quality.progress(progress);
        m_fed = end;
    }
}

int CostModelView::qualityPointCount() const {
    return static_cast<int>(m_spearman->count());
}

QString CostModelView::restrictionsText() const {
    return m_restrictions->text();
}

bool CostModelView::strategyHasModel(const QString& strategy) {
    try {
        return StrategyRegistry::builtin().create(strategy.toStdString())->usesCostModel();
    } catch (const std::exception&) {
        return true; // a strategy of another build (a reopened session): its trials tell
    }
}

void CostModelView::refresh() {
    const auto& trials = data().trials();
    feedQuality();
    if (m_modelOf != data().info().strategy) {
        m_modelOf = data().info().strategy;
        m_strategyHasModel = m_modelOf.isEmpty() || strategyHasModel(m_modelOf);
    }
    const std::vector<ModelQualityTracker::Point>& quality = m_quality.points();
    std::int64_t lastBatch = trials.empty() ? 0 : std::max<std::int64_t>(1, trials.back().batch);
    std::vector<QList<QPointF>> groups(kBatchGroups);
    double lo = INFINITY, hi = -INFINITY;
    qsizetype total = 0;
    for (const Trial& t : trials) {
        if (t.measurement.status != MeasureStatus::Ok || !t.predicted || *t.predicted <= 0 ||
            t.measurement.objective <= 0)
            continue;
        auto g = std::min<std::int64_t>(kBatchGroups - 1, t.batch * kBatchGroups / (lastBatch + 1));
        groups[static_cast<std::size_t>(g)].push_back({t.measurement.objective, *t.predicted});
        lo = std::min({lo, t.measurement.objective, *t.predicted});
        hi = std::max({hi, t.measurement.objective, *t.predicted});
        ++total;
    }
    const StaticEstimateFit fit = fitStaticEstimates(trials);
    m_staticScale = fit.scale;
    QList<QPointF> estimates;
    for (const Trial& t : trials) {
        const std::optional<double> raw = staticEstimate(t);
        if (!raw || t.measurement.objective <= 0 || *raw * fit.scale <= 0)
            continue;
        const double estimate = *raw * fit.scale;
        estimates.push_back({t.measurement.objective, estimate});
        lo = std::min({lo, t.measurement.objective, estimate});
        hi = std::max({hi, t.measurement.objective, estimate});
    }
    const QStringList& rules = data().restrictions();
    m_restrictions->setVisible(!rules.isEmpty());
    m_restrictions->setText(rules.isEmpty()
                                ? QString()
                                : tr("Restrictions learned from the failed configs (kept by every Ok "
                                     "config; add them to the kernel's constraints to skip such "
                                     "configs): %1")
                                      .arg(rules.join("; ")));
    QString text = summary(total);
    if (fit.trials >= 2)
        text += tr(" Static cost model (occupancy and roofline, nothing measured): Spearman %1 against "
                   "the measured times of %2 trials.")
                    .arg(fit.spearman, 0, 'f', 2)
                    .arg(fit.trials);
    m_summary->setText(text);
    // Nothing new to draw: leave the series alone (replace() re-lays the chart out).
    if (total + estimates.size() == m_drawnScatter && quality.size() == m_drawnQuality && !trials.empty())
        return;
    m_drawnScatter = total + estimates.size();
    m_drawnQuality = quality.size();
    charts::setRange(m_px, lo, hi);
    charts::setRange(m_py, lo, hi);
    const auto onAxes = [this](const QList<QPointF>& points) {
        return charts::axisPoints(m_px, m_py, points);
    };
    m_static->replace(onAxes(charts::decimate(estimates, kMaxScatter / 2)));
    for (int g = 0; g < kBatchGroups; ++g) {
        qsizetype share = total == 0 ? 0 : kMaxScatter * groups[g].size() / total + 1;
        m_groups[g]->replace(onAxes(charts::decimate(groups[g], share)));
        // Group g holds the batches b with b * kBatchGroups / (lastBatch + 1) == g.
        const std::int64_t first = (g * (lastBatch + 1) + kBatchGroups - 1) / kBatchGroups;
        const std::int64_t last = ((g + 1) * (lastBatch + 1) + kBatchGroups - 1) / kBatchGroups - 1;
        m_groups[g]->setName(first >= last ? tr("batch %1").arg(first)
                                           : tr("batches %1-%2").arg(first).arg(last));
    }
    QList<QPointF> diagonal;
    if (std::isfinite(lo))
        diagonal = onAxes({QPointF(lo / 1.2, lo / 1.2), QPointF(hi * 1.2, hi * 1.2)});
    if (m_diagonal->points() != diagonal)
        m_diagonal->replace(diagonal);
    markSelection();
    charts::showLegendOfDrawnSeries(m_scatterView->chart());
    m_legend->place();

    QList<QPointF> spearman, recall;
    for (const auto& point : quality) {
        spearman.push_back({double(point.evaluations), point.spearman});
        recall.push_back({double(point.evaluations), point.topKRecall});
    }
    m_spearman->replace(spearman);
    m_recall->replace(recall);
    charts::setRangeFromZero(m_qx, std::max<double>(static_cast<double>(trials.size()),
                                                    static_cast<double>(data().info().budget)));
}

QList<QPointF> CostModelView::scatterPoints(std::size_t row) const {
    const Trial& t = data().trials()[row];
    QList<QPointF> points;
    if (t.measurement.status == MeasureStatus::Ok && t.predicted && *t.predicted > 0 &&
        t.measurement.objective > 0)
        points.push_back({t.measurement.objective, *t.predicted});
    const std::optional<double> raw = staticEstimate(t);
    if (raw && t.measurement.objective > 0 && *raw * m_staticScale > 0)
        points.push_back({t.measurement.objective, *raw * m_staticScale});
    return points;
}

QList<QPointF> CostModelView::selectionMarks() const {
    const int row = data().selectedRow();
    if (row < 0 || static_cast<std::size_t>(row) >= data().trials().size())
        return {};
    return scatterPoints(static_cast<std::size_t>(row));
}

void CostModelView::markSelection() {
    QList<QPointF> marks = selectionMarks();
    for (QPointF& p : marks)
        p = charts::axisPoint(m_px, m_py, p);
    if (m_selection->points() != marks)
        m_selection->replace(marks);
}

// Every trial's points, not only the decimated ones drawn: a click near a point left out still finds its
// trial.
void CostModelView::addPickable(PointPicker& picker) const {
    QChart* chart = m_scatterView->chart();
    for (std::size_t row = 0; row < data().trials().size(); ++row)
        for (const QPointF& p : scatterPoints(row))
            picker.add(static_cast<int>(row),
                       chart->mapToPosition(charts::axisPoint(m_px, m_py, p), m_selection));
}

QString CostModelView::summary(qsizetype predicted) const {
    const QString strategy = data().info().strategy;
    if (!m_strategyHasModel && predicted == 0 && !strategy.isEmpty())
        return tr("Strategy %1 has no cost model: it predicts nothing to compare with the measured times. "
                  "Pick a model-guided strategy (xgb, evolutionary) to see one.")
            .arg(strategy);
    if (data().trials().empty())
        return tr("No trials yet.");
    if (predicted == 0)
        return tr("No predictions yet: the model predicts once it has been trained on the first batches.");
    const auto& quality = m_quality.points();
    if (quality.empty())
        return tr("%1 predicted trials.").arg(predicted);
    return tr("%1 predicted trials; latest Spearman %2, top-k recall %3.")
        .arg(predicted)
        .arg(quality.back().spearman, 0, 'f', 2)
        .arg(quality.back().topKRecall, 0, 'f', 2);
}

} // namespace ts::gui
