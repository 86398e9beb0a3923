#include "models/CostModel.h"

#include <cmath>

namespace ts {

void CostModel::updateResidual(std::span<const Trial> trials, std::span<const double> logOffsets) {
    std::vector<Trial> residual(trials.begin(), trials.end());
    for (std::size_t i = 0; i < residual.size(); ++i)
        residual[i].measurement.objective /= std::exp(logOffsets[i]);
    update(residual);
}

std::vector<double> CostModel::predictLog(std::span<const SearchSpace::Index> configs) const {
    std::vector<double> values = predict(configs);
    for (double& value : values)
        value = std::log(value);
    return values;
}

} // namespace ts
