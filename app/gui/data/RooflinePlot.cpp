#include "data/RooflinePlot.h"

#include "data/DeviceFeatures.h"

#include <QObject>
#include <QStringList>
#include <algorithm>
#include <vector>

namespace ts::gui {

namespace {

void fitRanges(const Roofline& r, RooflinePlot& plot) {
    std::vector<double> xs, ys;
    if (r.intensity)
        xs.push_back(*r.intensity);
    if (r.ridge())
        xs.push_back(*r.ridge());
    for (const RooflinePoint& p : r.points)
        ys.push_back(p.gflops);
    if (r.peakGflops)
        ys.push_back(*r.peakGflops);
    if (!xs.empty()) {
        plot.xLow = *std::min_element(xs.begin(), xs.end()) / 10;
        plot.xHigh = *std::max_element(xs.begin(), xs.end()) * 10;
    }
    if (r.bandwidthGBs)
        ys.push_back(*r.bandwidthGBs * plot.xLow);
    if (!ys.empty()) {
        plot.yLow = *std::min_element(ys.begin(), ys.end()) / 2;
        plot.yHigh = *std::max_element(ys.begin(), ys.end()) * 2;
    }
}

QString noteOf(const Roofline& r, const QString& bandwidthSource, const QString& kernel) {
    QStringList notes;
    if (r.peakGflops)
        notes << QObject::tr("red: peak FP32 %1 (cores x clock x SIMD lanes x FMA)")
                     .arg(DeviceFeatures::gflopsText(*r.peakGflops));
    if (r.bandwidthGBs)
        notes << QObject::tr("blue: memory bandwidth %1 GB/s (%2)")
                     .arg(*r.bandwidthGBs, 0, 'f', 1)
                     .arg(bandwidthSource);
    if (r.intensity)
        notes << QObject::tr("dots: the trials (the selected one red) of %1, %2 FLOP/byte")
                     .arg(kernel)
                     .arg(*r.intensity, 0, 'g', 3);
    QString text = notes.isEmpty() ? QString() : notes.join("; ") + ".";
    if (!r.problem.empty())
        text += " " + QString::fromStdString(r.problem);
    return text.trimmed();
}

} // namespace

RooflinePlot RooflinePlot::of(const Roofline& r, int selectedRow, const QString& bandwidthSource,
                              const QString& kernel) {
    RooflinePlot plot;
    fitRanges(r, plot);
    if (r.peakGflops) {
        const double from = r.ridge() ? *r.ridge() : plot.xLow;
        plot.compute = {{from, *r.peakGflops}, {plot.xHigh, *r.peakGflops}};
    }
    if (r.bandwidthGBs) {
        const double to = r.ridge() ? *r.ridge() : plot.xHigh;
        plot.memory = {{plot.xLow, *r.bandwidthGBs * plot.xLow}, {to, *r.bandwidthGBs * to}};
    }
    for (const RooflinePoint& p : r.points) {
        plot.trials.push_back({p.intensity, p.gflops});
        if (static_cast<int>(p.row) == selectedRow)
            plot.selected = QPointF(p.intensity, p.gflops);
    }
    plot.note = noteOf(r, bandwidthSource, kernel);
    return plot;
}

} // namespace ts::gui
