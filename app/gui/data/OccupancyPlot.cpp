#include "data/OccupancyPlot.h"

#include <algorithm>

namespace ts::gui {

namespace {

OccupancyPlot::Line lineOf(const OccupancyCurve& curve, double scale) {
    OccupancyPlot::Line line;
    line.xMax = scale;
    for (const OccupancyPoint& p : curve.points) {
        line.points.push_back({p.x * scale, p.occupancy * 100});
        line.xMax = std::max(line.xMax, p.x * scale);
    }
    // Stable: points at the same x keep core's order.
    std::stable_sort(line.points.begin(), line.points.end(),
                     [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
    line.mark = {curve.marked.x * scale, curve.marked.occupancy * 100};
    return line;
}

} // namespace

OccupancyPlot OccupancyPlot::of(const OccupancyCurves& curves) {
    OccupancyPlot plot;
    plot.lines[Threads] = lineOf(curves.threads, 1.0);
    plot.lines[Registers] = lineOf(curves.registers, 1.0);
    plot.lines[SharedMemory] = lineOf(curves.sharedMemory, 1.0 / 1024);
    return plot;
}

} // namespace ts::gui
