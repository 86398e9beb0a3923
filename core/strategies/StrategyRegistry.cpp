#include "strategies/StrategyRegistry.h"

#include "strategies/BruteForce.h"
#include "strategies/DualAnnealing.h"
#include "strategies/Evolutionary.h"
#include "strategies/GeneticAlgorithm.h"
#include "strategies/GreedyIls.h"
#include "strategies/ModelGuidedSearch.h"
#include "strategies/RandomSample.h"
#include "strategies/SimulatedAnnealing.h"
#include "strategies/Tpe.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ts {

const StrategyRegistry& StrategyRegistry::builtin() {
    static const StrategyRegistry registry = [] {
        StrategyRegistry r;
        r.add({"random_sample", "Uniform random sampling without replacement.",
               [] { return std::make_unique<RandomSample>(); }});
        r.add({"brute_force", "Every config of the space in index order.",
               [] { return std::make_unique<BruteForce>(); }});
        r.add({"simulated_annealing",
               "Simulated annealing over random neighbours; temperature decays per evaluated config.",
               [] { return std::make_unique<SimulatedAnnealing>(); }});
        r.add({"genetic_algorithm",
               "Genetic algorithm: rank-biased selection, crossover and mutation on the parameter values.",
               [] { return std::make_unique<GeneticAlgorithm>(); }});
        r.add(
            {"greedy_ils",
             "Greedy iterated local search: first-improvement hill climbing with random-walk perturbations.",
             [] { return std::make_unique<GreedyIls>(); }});
        r.add({"dual_annealing",
               "Dual annealing (scipy): generalized simulated annealing on the index encoding plus local "
               "search.",
               [] { return std::make_unique<DualAnnealing>(); }});
        r.add(
            {"xgb",
             "Model-guided search: XGBoost validity classifier and regressor ensemble, candidates ranked by "
             "P(valid) x expected improvement.",
             [] { return std::make_unique<ModelGuidedSearch>(); }});
        r.add({"tpe",
               "Tree-structured Parzen estimator (Optuna-style TPE): models good vs bad configs and proposes "
               "by "
               "the ratio l(x)/g(x).",
               [] { return std::make_unique<Tpe>(); }});
        r.add({"evolutionary",
               "Model-guided evolutionary search (Ansor / MetaSchedule-style): evolves a population seeded "
               "with the "
               "best measured configs on an XGBoost cost model and validity classifier (mutation, "
               "crossover), and "
               "measures the fittest unproposed configs by P(valid) x expected improvement.",
               [] { return std::make_unique<Evolutionary>(); }});
        r.setDefault("xgb");
        return r;
    }();
    return registry;
}

void StrategyRegistry::add(Builtin builtin) {
    auto table = builtin.create()->optionSpecs();
    add({std::move(builtin.name), std::move(builtin.description), std::move(table),
         std::move(builtin.create)});
}

void StrategyRegistry::add(Entry entry) {
    std::string name = entry.name;
    m_entries[name] = std::move(entry);
}

std::vector<std::string> StrategyRegistry::names() const {
    std::vector<std::string> result;
    for (const auto& [name, entry] : m_entries)
        result.push_back(name);
    return result;
}

const StrategyRegistry::Entry& StrategyRegistry::entry(const std::string& name) const {
    const std::string& resolved = name == kDefaultAlias ? m_default : name;
    auto it = m_entries.find(resolved);
    if (it == m_entries.end())
        throw Error(fmt::format("Unknown strategy \"{}\" (known: {}, {}).", name, fmt::join(names(), ", "),
                                kDefaultAlias));
    return it->second;
}

StrategyOptions StrategyRegistry::options(const std::string& name,
                                          const std::map<std::string, std::string>& given) const {
    const Entry& e = entry(name);
    return StrategyOptions(e.name, e.options, given);
}

} // namespace ts
