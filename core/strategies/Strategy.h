#pragma once

#include "session/Trial.h"
#include "strategies/StrategyContext.h"

#include <span>
#include <string>
#include <vector>

namespace ts {

// A search strategy: batched ask (propose) and tell (observe). Strategies never own the loop, so the
// session can pause, cancel and checkpoint between batches. Deterministic for a given seed.
//
// propose() returns at most maxCount product indices from the domain of the context's mode, none of them
// proposed before; an empty result means the strategy has nothing left to propose. observe() receives the
// trials of the configs proposed, in any order, possibly split over several calls.
class Strategy {
public:
    virtual ~Strategy() = default;
    virtual std::string name() const = 0;
    virtual void reset(const StrategyContext& context) = 0;
    virtual std::vector<SearchSpace::Index> propose(std::size_t maxCount) = 0;
    virtual void observe(std::span<const Trial> trials) = 0;
};

} // namespace ts
