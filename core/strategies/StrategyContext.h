#pragma once

#include "models/CostModelFactory.h"
#include "models/TransferPrior.h"
#include "space/SearchSpace.h"
#include "strategies/StrategyOptions.h"

#include <cstdint>
#include <memory>

namespace ts {

// What a strategy is reset with. The space outlives the strategy's use of it.
struct StrategyContext {
    const SearchSpace* space = nullptr;
    SpaceMode mode = SpaceMode::Constrained;
    std::uint64_t seed = 0;
    // Validated against the strategy's option table at reset; options not given take the table's defaults
    // (an empty value is a strategy with all defaults).
    StrategyOptions options;
    // Measurements of the same kernel elsewhere; strategies that can use them start from them, the rest
    // ignore them. Null for a cold start.
    std::shared_ptr<const TransferPrior> prior = nullptr;
    // The performance models of the strategies that use one (Strategy::usesCostModel()); the rest ignore it.
    // Empty: XGBoost regressors (XgbCostModel) set up by the strategy's model options (rounds, max_depth,
    // threads).
    CostModelFactory costModel = nullptr;
    // Inputs known for the configs before any measurement: the hardware features of the target's static
    // profile (registers, spills, shared memory, occupancy and its limiter, grid fill on the GPU), covering
    // every config of the domain. Strategies whose `hardware` option is on give them to their models; null
    // when the session has none.
    std::shared_ptr<const ConfigFeatureTable> staticFeatures = nullptr;
};

} // namespace ts
