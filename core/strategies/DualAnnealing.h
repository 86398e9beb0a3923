#pragma once

#include "strategies/MemoizedSearch.h"
#include "strategies/OptionSpec.h"

namespace ts {

// Kernel Tuner's dual_annealing (scipy.optimize.dual_annealing) on the index encoding: each tunable
// parameter is a coordinate in [0, number of values) and a point is the config of the cells it falls in.
// Generalized simulated annealing: a strategy chain of 2n visits per temperature step (all coordinates, then
// one at a time) drawn from the Tsallis visiting distribution, Tsallis acceptance, re-annealing from a random
// config when the temperature falls below initial_temp * restart_temp_ratio; after a chain that improved the
// best (or one that did not for long), a local search: Powell-like line searches over each parameter's
// values.
class DualAnnealing : public MemoizedSearch {
public:
    std::string name() const override { return "dual_annealing"; }
    static std::vector<OptionSpec> optionTable();
    std::vector<OptionSpec> optionSpecs() const override { return optionTable(); }

private:
    SearchCoroutine search() override;
    Index snap(const std::vector<double>& point) const;
    // A random point inside the cell of a config.
    std::vector<double> pointIn(Index index);
    // scipy's VisitingDistribution.visiting: all coordinates move for step < n, else coordinate step - n.
    std::vector<double> visiting(const std::vector<double>& point, std::size_t step, double temperature);
    // scipy's visit_fn for one coordinate.
    double visitStep(double temperature);
    // Wraps a coordinate back into [0, number of values).
    double wrap(double value, std::size_t coordinate) const;

    double m_visit = 2.62;
    double m_factor4p = 0.0;
    double m_factor6 = 0.0;
};

} // namespace ts
