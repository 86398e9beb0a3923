#include "charts/RooflineChart.h"

#include "charts/ChartSupport.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QVBoxLayout>

namespace ts::gui {

namespace {

// At most this many trial dots: scatter markers are graphics items.
constexpr qsizetype kMaxDots = 2000;

} // namespace

RooflineChart::RooflineChart(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_view = charts::makeChartView(tr("Roofline of this CPU"), this);
    QChart* chart = m_view->chart();
    chart->legend()->hide(); // the note names the lines by colour
    m_x = charts::makeAxis(tr("FLOP/byte"), true);
    m_y = charts::makeAxis(tr("GFLOP/s"), true);
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    m_peakLine = new QLineSeries;
    m_peakLine->setName(tr("peak FP32"));
    m_peakLine->setPen(QPen(QColor(200, 60, 30), 2));
    m_memoryLine = new QLineSeries;
    m_memoryLine->setName(tr("memory bandwidth"));
    m_memoryLine->setPen(QPen(QColor(30, 90, 200), 2));
    m_trialPoints = new QScatterSeries;
    m_trialPoints->setName(tr("trials"));
    m_trialPoints->setMarkerSize(7);
    m_trialPoints->setColor(QColor(90, 90, 90));
    m_selectedPoint = new QScatterSeries;
    m_selectedPoint->setName(tr("selected"));
    m_selectedPoint->setMarkerSize(12);
    m_selectedPoint->setColor(Qt::red);
    for (QXYSeries* s : {static_cast<QXYSeries*>(m_peakLine), static_cast<QXYSeries*>(m_memoryLine),
                         static_cast<QXYSeries*>(m_trialPoints), static_cast<QXYSeries*>(m_selectedPoint)}) {
        chart->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    layout->addWidget(m_view, 1);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    layout->addWidget(m_note);
}

void RooflineChart::clear(const QString& note) {
    for (QXYSeries* s : {static_cast<QXYSeries*>(m_peakLine), static_cast<QXYSeries*>(m_memoryLine),
                         static_cast<QXYSeries*>(m_trialPoints), static_cast<QXYSeries*>(m_selectedPoint)})
        s->clear();
    m_note->setText(note);
}

void RooflineChart::draw(const RooflinePlot& plot) {
    clear(plot.note);
    charts::setRange(m_x, plot.xLow, plot.xHigh);
    charts::setRange(m_y, plot.yLow, plot.yHigh);
    const auto onAxes = [this](const QList<QPointF>& points) { return charts::axisPoints(m_x, m_y, points); };
    m_peakLine->replace(onAxes(plot.compute));
    m_memoryLine->replace(onAxes(plot.memory));
    m_trialPoints->replace(charts::decimate(onAxes(plot.trials), kMaxDots));
    if (plot.selected)
        m_selectedPoint->replace(onAxes({*plot.selected}));
}

} // namespace ts::gui
