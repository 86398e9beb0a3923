#include "charts/OccupancyCharts.h"

#include "charts/ChartSupport.h"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QScatterSeries>

namespace ts::gui {

OccupancyCharts::OccupancyCharts(QWidget* parent) : QObject(parent) {
    // Short titles: a chart in a narrow dock elides a long one; the axis says what varies.
    const QString titles[] = {tr("Occupancy vs block size"), tr("Occupancy vs registers"),
                              tr("Occupancy vs shared memory")};
    const QString units[] = {tr("threads per block"), tr("registers per thread"), tr("shared memory (KB)")};
    for (std::size_t c = 0; c < m_views.size(); ++c) {
        m_views[c] = charts::makeChartView(titles[c], parent);
        QChart* chart = m_views[c]->chart();
        chart->legend()->hide();
        m_x[c] = charts::makeAxis(units[c], false);
        m_y[c] = charts::makeAxis(tr("occupancy (%)"), false);
        chart->addAxis(m_x[c], Qt::AlignBottom);
        chart->addAxis(m_y[c], Qt::AlignLeft);
        charts::setRangeIfChanged(m_y[c], 0, 100); // a percentage: the axis ends at 100 %
        m_lines[c] = new QLineSeries;
        m_lines[c]->setPen(QPen(QColor(30, 90, 200), 2));
        m_marks[c] = new QScatterSeries;
        m_marks[c]->setMarkerSize(12);
        m_marks[c]->setColor(Qt::red);
        for (QXYSeries* s : {static_cast<QXYSeries*>(m_lines[c]), static_cast<QXYSeries*>(m_marks[c])}) {
            chart->addSeries(s);
            s->attachAxis(m_x[c]);
            s->attachAxis(m_y[c]);
        }
    }
}

void OccupancyCharts::draw(const OccupancyPlot& plot) {
    for (std::size_t c = 0; c < m_views.size(); ++c) {
        const OccupancyPlot::Line& line = plot.lines[c];
        m_lines[c]->replace(line.points);
        m_marks[c]->replace({line.mark});
        charts::setRangeIfChanged(m_x[c], 0, line.xMax);
    }
}

void OccupancyCharts::clear() {
    for (std::size_t c = 0; c < m_views.size(); ++c) {
        m_lines[c]->clear();
        m_marks[c]->clear();
        charts::setRangeIfChanged(m_x[c], 0, 1);
    }
}

void OccupancyCharts::setVisible(bool visible) {
    for (QChartView* view : m_views)
        view->setVisible(visible);
}

} // namespace ts::gui
