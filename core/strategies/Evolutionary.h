#pragma once

#include "models/CostModel.h"
#include "strategies/ModelStrategyBase.h"

#include <memory>
#include <unordered_map>

namespace ts {

// `evolutionary`: model-guided evolutionary search in the style of Ansor / TVM MetaSchedule. After an
// adaptive random start (until a few valid configs are found), every batch retrains an XGBoost validity
// classifier and a cost model of log time (the context's, by default an XGBoost regressor), then evolves a
// population seeded with the best measured configs and random ones for a few generations on the models alone
// (tournament selection, uniform crossover, one-parameter mutation to a random or adjacent value; in
// Constrained mode only valid children survive). Fitness is P(valid) x expected improvement over the best
// time so far. The batch is the fittest unproposed configs met during the evolution, kept apart from each
// other where possible, with epsilon-greedy random slots. Never enumerates the domain, so it scales to spaces
// of millions of configs.
class Evolutionary : public ModelStrategyBase {
public:
    static std::vector<OptionSpec> optionTable();
    std::vector<OptionSpec> optionSpecs() const override { return optionTable(); }

    std::string name() const override { return "evolutionary"; }

private:
    // A config the models scored during the current batch's evolution.
    struct Scored {
        Index index = 0;
        double score = 0.0;
        double meanLog = 0.0;
    };

    void onModelReset() override;
    void retrain() override;
    std::vector<SearchSpace::Index> proposeBatch(std::size_t count) override;
    // Archive positions of the seed population: the best measured configs, last batch's runners-up and
    // random configs.
    std::vector<std::size_t> seedPopulation();
    // Scores the configs not in the archive yet; returns the archive position of every given config.
    std::vector<std::size_t> scoreAll(std::span<const Index> indices);
    std::vector<std::size_t> nextGeneration(const std::vector<std::size_t>& population);
    std::size_t tournament(const std::vector<std::size_t>& population);
    // One child of the population, or nullopt when no acceptable child was found.
    std::optional<Index> offspring(const std::vector<std::size_t>& population);
    void mutate(std::vector<std::uint32_t>& digits);
    std::vector<Index> pick(std::size_t count);

    std::unique_ptr<CostModel> m_cost;
    std::vector<Scored> m_archive;
    std::unordered_map<Index, std::size_t> m_archived; // index -> position in m_archive
    std::vector<Index> m_carried;
    double m_bestLog = 0.0;
    std::size_t m_population = 0;
    std::size_t m_generations = 0;
    std::size_t m_elite = 0;
    std::size_t m_diversity = 0;
    double m_mutationProb = 0.0;
    double m_crossoverProb = 0.0;
};

} // namespace ts
