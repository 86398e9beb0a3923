#include "hardware/StaticEstimateFit.h"

#include "models/ModelQuality.h"

#include <algorithm>
#include <vector>

namespace ts {

std::optional<double> staticEstimate(const Trial& trial) {
    if (trial.measurement.status != MeasureStatus::Ok || trial.measurement.objective <= 0)
        return std::nullopt;
    auto it = trial.measurement.metrics.find(kStaticEstimateMetric);
    if (it == trial.measurement.metrics.end() || it->second <= 0)
        return std::nullopt;
    return it->second;
}

StaticEstimateFit fitStaticEstimates(std::span<const Trial> trials) {
    std::vector<double> estimated, measured, ratios;
    for (const Trial& t : trials) {
        const std::optional<double> estimate = staticEstimate(t);
        if (!estimate)
            continue;
        estimated.push_back(*estimate);
        measured.push_back(t.measurement.objective);
        ratios.push_back(t.measurement.objective / *estimate);
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
