#pragma once

#include "hardware/Roofline.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <optional>

namespace ts::gui {

// What the roofline chart draws, in data units (FLOP/byte, GFLOP/s), computed from core's Roofline before
// anything is drawn: the axis ranges (the kernel's intensity and the ridge a decade either side), the peak
// compute line from the ridge on, the bandwidth slope up to it, the trials, the selected one, and the note
// under the chart that names the lines by colour (a legend would not fit a narrow dock).
struct RooflinePlot {
    double xLow = 1e-2, xHigh = 1e2, yLow = 1, yHigh = 1e3;
    QList<QPointF> compute; // empty when the peak is unknown
    QList<QPointF> memory;  // empty when the bandwidth is unknown
    QList<QPointF> trials;
    std::optional<QPointF> selected;
    QString note;

    // `selectedRow`: the selected trial's row (-1: none); `bandwidthSource`: how the bandwidth was found;
    // `kernel`: the kernel and its size as the note names them.
    static RooflinePlot of(const Roofline& roofline, int selectedRow, const QString& bandwidthSource,
                           const QString& kernel);
};

} // namespace ts::gui
