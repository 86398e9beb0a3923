#pragma once

#include "strategies/StrategyBase.h"

namespace ts {

// Every candidate of the domain in index order (Kernel Tuner's brute_force).
class BruteForce : public StrategyBase {
public:
    std::string name() const override { return "brute_force"; }
    std::vector<SearchSpace::Index> propose(std::size_t maxCount) override;

private:
    void onReset() override { m_next = 0; }
    SearchSpace::Index m_next = 0;
};

} // namespace ts
