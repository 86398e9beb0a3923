#include "HeatmapData.h"

#include "RunData.h"

#include <cmath>

namespace ts::gui {

HeatmapData HeatmapData::compute(const RunData& data, std::size_t xParameter, std::size_t yParameter) {
    HeatmapData h;
    const auto& parameters = data.parameters();
    if (xParameter >= parameters.size() || yParameter >= parameters.size())
        return h;
    h.xParameter = xParameter;
    h.yParameter = yParameter;
    h.columns = static_cast<int>(parameters[xParameter].values.size());
    h.rows = static_cast<int>(parameters[yParameter].values.size());
    auto cells = static_cast<std::size_t>(h.columns * h.rows);
    h.best.assign(cells, INFINITY);
    h.bestTrial.assign(cells, -1);
    h.count.assign(cells, 0);
    h.lo = INFINITY;
    h.hi = -INFINITY;
    const auto& trials = data.trials();
    for (std::size_t row = 0; row < trials.size(); ++row) {
        const Trial& t = trials[row];
        int x = data.trialPosition(row, xParameter);
        int y = data.trialPosition(row, yParameter);
        if (x < 0 || y < 0)
            continue;
        auto cell = static_cast<std::size_t>(y * h.columns + x);
        ++h.count[cell];
        if (t.measurement.status == MeasureStatus::Ok && t.measurement.objective < h.best[cell]) {
            h.best[cell] = t.measurement.objective;
            h.bestTrial[cell] = static_cast<int>(row);
        }
    }
    for (double v : h.best)
        if (std::isfinite(v)) {
            h.lo = std::min(h.lo, v);
            h.hi = std::max(h.hi, v);
        }
    return h;
}

} // namespace ts::gui
