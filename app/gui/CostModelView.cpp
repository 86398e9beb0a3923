#include "CostModelView.h"

#include "ChartSupport.h"
#include "RunData.h"
#include "hardware/StaticEstimateFit.h"

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
    auto* splitter = new QSplitter(Qt::Horizontal, this);
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
        m_groups.push_back(series);
        // The legend names the first and last colours only.
        series->setName(g == 0 ? tr("early batches") : tr("late batches"));
        if (g != 0 && g != kBatchGroups - 1)
            for (QLegendMarker* marker : scatter->legend()->markers(series))
                marker->setVisible(false);
    }
    m_static = new QScatterSeries;
    m_static->setName(tr("static model (calibrated)"));
    m_static->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_static->setMarkerSize(5.0);
    m_static->setColor(QColor(40, 40, 40));
    m_static->setBorderColor(Qt::transparent);
    scatter->addSeries(m_static);
    m_static->attachAxis(m_px);
    m_static->attachAxis(m_py);
    splitter->addWidget(m_scatterView);

    m_qualityView = charts::makeChartView(tr("Model quality on unseen configs"), splitter);
    QChart* quality = m_qualityView->chart();
    m_qx = charts::makeAxis(tr("evaluations"), false);
    m_qy = charts::makeAxis(tr("value"), false);
    quality->addAxis(m_qx, Qt::AlignBottom);
    quality->addAxis(m_qy, Qt::AlignLeft);
    m_qy->setRange(-1.0, 1.0);
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

    connect(&data, &RunData::resetDone, this, &CostModelView::markDirty);
    connect(&data, &RunData::trialsAppended, this, &CostModelView::markDirty);
    connect(&data, &RunData::qualityChanged, this, &CostModelView::markDirty);
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

int CostModelView::qualityPointCount() const {
    return static_cast<int>(m_spearman->count());
}

QString CostModelView::restrictionsText() const {
    return m_restrictions->text();
}

void CostModelView::refresh() {
    const auto& trials = data().trials();
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
    QList<QPointF> estimates;
    for (const Trial& t : trials) {
        const std::optional<double> raw = staticEstimate(t);
        if (!raw)
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
    // Nothing new to draw: leave the series alone (replace() re-lays the chart out).
    if (total + estimates.size() == m_drawnScatter && data().quality().size() == m_drawnQuality &&
        !trials.empty())
        return;
    m_drawnScatter = total + estimates.size();
    m_static->replace(charts::decimate(estimates, kMaxScatter / 2));
    m_drawnQuality = data().quality().size();
    for (int g = 0; g < kBatchGroups; ++g) {
        qsizetype share = total == 0 ? 0 : kMaxScatter * groups[g].size() / total + 1;
        m_groups[g]->replace(charts::decimate(groups[g], share));
    }
    charts::setRange(m_px, lo, hi);
    charts::setRange(m_py, lo, hi);
    QList<QPointF> diagonal;
    if (std::isfinite(lo))
        diagonal = {QPointF(lo / 1.2, lo / 1.2), QPointF(hi * 1.2, hi * 1.2)};
    if (m_diagonal->points() != diagonal)
        m_diagonal->replace(diagonal);

    QList<QPointF> spearman, recall;
    for (const auto& point : data().quality()) {
        spearman.push_back({double(point.evaluations), point.spearman});
        recall.push_back({double(point.evaluations), point.topKRecall});
    }
    m_spearman->replace(spearman);
    m_recall->replace(recall);
    charts::setRangeFromZero(m_qx, std::max<double>(static_cast<double>(trials.size()),
                                                    static_cast<double>(data().info().budget)));

    QString summary;
    if (total == 0)
        summary = trials.empty() ? tr("No trials yet.")
                                 : tr("Strategy %1 makes no predictions: pick a model-guided strategy "
                                      "(xgb, evolutionary) to see its cost model.")
                                       .arg(data().info().strategy);
    else if (!data().quality().empty())
        summary = tr("%1 predicted trials; latest Spearman %2, top-k recall %3.")
                      .arg(total)
                      .arg(data().quality().back().spearman, 0, 'f', 2)
                      .arg(data().quality().back().topKRecall, 0, 'f', 2);
    else
        summary = tr("%1 predicted trials.").arg(total);
    if (fit.trials >= 2)
        summary += tr(" Static cost model (occupancy and roofline, nothing measured): Spearman %1 against "
                      "the measured times of %2 trials.")
                       .arg(fit.spearman, 0, 'f', 2)
                       .arg(fit.trials);
    m_summary->setText(summary);
}

} // namespace ts::gui
