#include "data/HeatmapData.h"

#include "data/RunData.h"

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
    h.add(data, 0);
    return h;
}

void HeatmapData::add(const RunData& data, std::size_t first) {
    const auto& all = data.trials();
    if (columns == 0 || rows == 0) {
        trials = all.size();
        return;
    }
    for (std::size_t row = first; row < all.size(); ++row) {
        const Trial& t = all[row];
        int x = data.trialPosition(row, xParameter);
        int y = data.trialPosition(row, yParameter);
        if (x < 0 || y < 0)
            continue;
        auto cell = static_cast<std::size_t>(y * columns + x);
        ++count[cell];
        if (t.measurement.status == MeasureStatus::Ok && t.measurement.objective < best[cell]) {
            best[cell] = t.measurement.objective;
            bestTrial[cell] = static_cast<int>(row);
        }
    }
    trials = all.size();
    // A cell's best only falls, but the slowest cell may be the one that fell: the range is recounted.
    lo = INFINITY;
    hi = -INFINITY;
    for (double v : best)
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
}

} // namespace ts::gui
