#pragma once

#include "space/SearchSpace.h"
#include "strategies/StrategyOptions.h"

#include <cstdint>

namespace ts {

// What a strategy is reset with. The space outlives the strategy's use of it.
struct StrategyContext {
    const SearchSpace* space = nullptr;
    SpaceMode mode = SpaceMode::Constrained;
    std::uint64_t seed = 0;
    StrategyOptions options;
};

} // namespace ts
