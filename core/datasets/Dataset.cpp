#include "datasets/Dataset.h"

#include <algorithm>
#include <vector>

namespace ts {

std::optional<double> Dataset::optimum() const {
    std::optional<double> best;
    for (const auto& [index, measurement] : entries) {
        if (measurement.status == MeasureStatus::Ok && (!best || measurement.objective < *best)) {
            best = measurement.objective;
        }
    }
    return best;
}

std::size_t Dataset::okCount() const {
    return static_cast<std::size_t>(std::count_if(entries.begin(), entries.end(), [](const auto& entry) {
        return entry.second.status == MeasureStatus::Ok;
    }));
}

std::optional<double> Dataset::medianObjective() const {
    std::vector<double> objectives;
    objectives.reserve(entries.size());
    for (const auto& [index, measurement] : entries) {
        if (measurement.status == MeasureStatus::Ok) {
            objectives.push_back(measurement.objective);
        }
    }
    if (objectives.empty()) {
        return std::nullopt;
    }
    const auto n = objectives.size();
    const auto middle = objectives.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(objectives.begin(), middle, objectives.end());
    if (n % 2 == 1) {
        return *middle;
    }
    const double upper = *middle;
    const double lower = *std::max_element(objectives.begin(), middle);
    return 0.5 * (lower + upper);
}

} // namespace ts
