#pragma once

#include "strategies/MemoizedSearch.h"
#include "strategies/OptionSpec.h"

namespace ts {

// Kernel Tuner's genetic_algorithm: generations of popsize distinct individuals; parents are drawn with
// a Beta(1, 2.5) bias towards the fastest, crossed over on their digit vectors and mutated to a random
// Hamming neighbour with probability 1 / mutation_chance. Individuals already known cost nothing; when
// generations stop producing new configs, the worse half is replaced by fresh random ones.
class GeneticAlgorithm : public MemoizedSearch {
public:
    std::string name() const override { return "genetic_algorithm"; }
    static std::vector<OptionSpec> optionTable();
    std::vector<OptionSpec> optionSpecs() const override { return optionTable(); }

private:
    SearchCoroutine search() override;
    // The two children of two parents under the named crossover.
    std::pair<Index, Index> crossover(Index a, Index b, const std::string& method);
    // A rank in [0, size) biased towards 0 (Kernel Tuner's betavariate(1, 2.5) selection).
    std::size_t biasedRank(std::size_t size);
};

} // namespace ts
