#pragma once

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
    StrategyOptions options;
    // Measurements of the same kernel elsewhere; strategies that can use them start from them, the rest
    // ignore them. Null for a cold start.
    std::shared_ptr<const TransferPrior> prior = nullptr;
};

} // namespace ts
