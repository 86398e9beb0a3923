#pragma once

#include "strategies/MemoizedSearch.h"
#include "strategies/OptionSpec.h"

namespace ts {

// Kernel Tuner's simulated_annealing: a walk over random neighbours (mostly adjacent, sometimes Hamming)
// accepting a worse config with probability exp(-relative loss / T). T decays with the number of configs
// evaluated, so revisits are free; the walk restarts at a random config when it stops finding new ones, and
// the schedule restarts once T falls below T_min.
class SimulatedAnnealing : public MemoizedSearch {
public:
    std::string name() const override { return "simulated_annealing"; }
    static std::vector<OptionSpec> optionTable();
    std::vector<OptionSpec> optionSpecs() const override { return optionTable(); }

private:
    SearchCoroutine search() override;
};

} // namespace ts
