#pragma once

#include "hardware/OccupancyCurves.h"

#include <QList>
#include <QPointF>
#include <array>

namespace ts::gui {

// What the Hardware view's three occupancy charts draw, computed from core's OccupancyCurves before anything
// is drawn: per curve its points in ascending x (core appends the config's own x after the regular steps, so
// the points are sorted here, or the line would double back), the config's mark and the x range. Occupancy
// is in percent; shared memory in KB (byte counts make tick labels too wide for a chart in a dock).
struct OccupancyPlot {
    enum Curve { Threads, Registers, SharedMemory };
    static constexpr int kCurves = 3;

    struct Line {
        QList<QPointF> points; // ascending x
        QPointF mark;
        double xMax = 1.0;
    };
    std::array<Line, kCurves> lines;

    static OccupancyPlot of(const OccupancyCurves& curves);
};

} // namespace ts::gui
