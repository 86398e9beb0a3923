#pragma once

#include "data/OccupancyPlot.h"

#include <QObject>
#include <array>

class QAbstractAxis;
class QChartView;
class QLineSeries;
class QScatterSeries;
class QWidget;

namespace ts::gui {

// The Hardware view's three occupancy charts (vs threads per block, registers per thread, shared memory per
// block), each a line with the config marked, as Nsight Compute draws them. They draw an OccupancyPlot and
// hold no other state; the view places the chart views in its layout.
class OccupancyCharts : public QObject {
    Q_OBJECT
public:
    explicit OccupancyCharts(QWidget* parent);

    QChartView* view(int curve) const { return m_views[static_cast<std::size_t>(curve)]; }
    QScatterSeries* mark(int curve) const { return m_marks[static_cast<std::size_t>(curve)]; }
    QLineSeries* line(int curve) const { return m_lines[static_cast<std::size_t>(curve)]; }

    void draw(const OccupancyPlot& plot);
    void clear();
    void setVisible(bool visible);

private:
    std::array<QChartView*, OccupancyPlot::kCurves> m_views{};
    std::array<QAbstractAxis*, OccupancyPlot::kCurves> m_x{};
    std::array<QAbstractAxis*, OccupancyPlot::kCurves> m_y{};
    std::array<QLineSeries*, OccupancyPlot::kCurves> m_lines{};
    std::array<QScatterSeries*, OccupancyPlot::kCurves> m_marks{};
};

} // namespace ts::gui
