#pragma once

#include "strategies/MemoizedSearch.h"
#include "strategies/OptionSpec.h"

namespace ts {

// Kernel Tuner's greedy_ils: first-improvement hill climbing over the neighbours of the current config (in
// random parameter and value order), then a perturbation of a few random Hamming steps; after
// no_improvement climbs that did not beat the best, each climb starts from a random config instead.
class GreedyIls : public MemoizedSearch {
public:
    std::string name() const override { return "greedy_ils"; }
    static std::vector<OptionSpec> optionTable();
    std::vector<OptionSpec> optionSpecs() const override { return optionTable(); }

private:
    SearchCoroutine search() override;
};

} // namespace ts
