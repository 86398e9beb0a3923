#include "hardware/StaticEstimateFit.h"

#include "models/ModelQuality.h"

#include <algorithm>
#include <vector>

namespace ts {

StaticEstimateFit fitStaticEstimates(std::span<const Trial> trials) {
    std::vector<double> estimated, measured, ratios;
    for (const Trial& t : trials) {
        if (t.measurement.status != MeasureStatus::Ok || t.measurement.objective <= 0)
            continue;
        auto it = t.measurement.metrics.find(kStaticEstimateMetric);
        if (it == t.measurement.metrics.end() || it->second <= 0)
            continue;
        estimated.push_back(it->second);
        measured.push_back(t.measurement.objective);
        ratios.push_back(t.measurement.objective / it->second);
    }
    StaticEstimateFit fit;
    fit.trials = measured.size();
    if (fit.trials == 0)
        return fit;
    fit.spearman = spearman(estimated, measured);
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    fit.scale = ratios[ratios.size() / 2];
    return fit;
}

} // namespace ts
