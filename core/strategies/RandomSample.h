#pragma once

#include "strategies/StrategyBase.h"

namespace ts {

// Uniform random sampling without replacement (Kernel Tuner's random_sample).
class RandomSample : public StrategyBase {
public:
    std::string name() const override { return "random_sample"; }
    std::vector<SearchSpace::Index> propose(std::size_t maxCount) override;
};

} // namespace ts
