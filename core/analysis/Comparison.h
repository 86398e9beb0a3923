#pragma once

#include "datasets/Dataset.h"
#include "datasets/DatasetProfile.h"
#include "models/ConfigFeatureTable.h"
#include "models/TransferPrior.h"
#include "strategies/StrategyOptions.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ts {

struct CompareSettings {
    std::vector<std::string> strategies;
    std::map<std::string, std::map<std::string, std::string>> options; // per strategy name
    std::vector<std::int64_t> budgets{25, 50, 100, 200, 400};
    int repeats = 10;
    std::uint64_t seed = 0; // run r uses seed + r
    SpaceMode mode = SpaceMode::Product;
    std::size_t batchSize = 8; // as `tune`: most configs asked of a strategy at once
    unsigned threads = 0;      // 0: one per hardware thread
    // Warm starts: each dataset's strategies get a transfer prior built from the other datasets of the same
    // kernel (leave one device out). Only strategies that use a prior change; report such runs apart.
    bool transfer = false;
    // Warm starts from these datasets instead (each dataset with their parameter names gets a prior built
    // from them, whatever their kernel): a chosen, possibly misleading, source. Not with transfer.
    std::vector<std::shared_ptr<const Dataset>> priors;
};

// One strategy on one dataset with one seed.
struct CompareRun {
    std::string strategy;
    std::size_t dataset = 0;
    std::uint64_t seed = 0;
    std::vector<SearchSpace::Index> configs; // evaluated configs, in order
    std::vector<double> bestSoFar;           // best Ok objective after each evaluation; +inf before any
    double strategySeconds = 0.0;
    // The budget the run was started with (a peer's max_fevals), when known. Where a strategy has runs
    // started with exactly budget B on a dataset, the score at B uses those runs (a budget-adaptive peer
    // plans differently for each budget); every other budget cuts the runs with the largest budgetGiven.
    std::int64_t budgetGiven = std::numeric_limits<std::int64_t>::max();
};

struct CompareResult {
    std::vector<CompareRun> runs;
    // fraction[strategy][dataset][budget position]: mean over seeds of optimum / best found.
    std::map<std::string, std::vector<std::vector<double>>> fraction;
    // Mean of fraction over the datasets with finished runs of the strategy, per strategy and budget
    // position.
    std::map<std::string, std::vector<double>> meanFraction;
    // budgetUsed[strategy][dataset][budget position]: mean over the scored runs of the unique configs they
    // evaluated within the budget, as a share of min(budget, size of the space); below 1 where the runs
    // stopped before the budget was spent (their best so far then stands for the rest of it).
    std::map<std::string, std::vector<std::vector<double>>> budgetUsed;
    // Mean of budgetUsed over the datasets with finished runs, per strategy and budget position.
    std::map<std::string, std::vector<double>> meanBudgetUsed;
    // The exact expectation of random sampling, per dataset and budget position.
    std::vector<std::vector<double>> randomExpectation;
    // Methodology score (see Comparison::methodologyScore) per strategy, mean over the datasets with finished
    // runs of the strategy.
    std::map<std::string, double> score;
    double seconds = 0.0;
};

// Runs every strategy x dataset x seed on the replay backend, spread over threads, and scores the runs:
// fraction of optimum at each budget and the methodology score of Willemsen et al. (FGCS 2024).
class Comparison {
public:
    using ProgressCallback = std::function<void(std::size_t done, std::size_t total)>;

    Comparison(std::vector<std::shared_ptr<const Dataset>> datasets, CompareSettings settings);

    // Throws Error for an unknown strategy or option before any run starts. Stops early when `cancel`
    // becomes true (the result then holds only the finished runs).
    CompareResult run(const ProgressCallback& progress = {}, const std::atomic<bool>* cancel = nullptr) const;

    // Methodology score of runs on one dataset, evaluated over evaluations 1..horizon:
    // mean over t of (B(t) - S(t)) / (B(t) - optimum), where B(t) is the exact expected best objective of
    // random sampling, S(t) the mean best objective of the runs, and the median objective stands in for
    // "nothing valid found yet". 0 = as good as random sampling, 1 = the optimum at once, < 0 = worse.
    static double methodologyScore(const Dataset& dataset, SpaceMode mode,
                                   const std::vector<const CompareRun*>& runs, std::int64_t horizon);

    static double fractionAt(const CompareRun& run, double optimum, std::int64_t budget);

    // Scores finished runs (from run() or re-read from a trace) with the settings' strategies and budgets.
    static CompareResult score(const std::vector<std::shared_ptr<const Dataset>>& datasets,
                               const CompareSettings& settings, std::vector<CompareRun> runs);

    // The best-so-far curve of configs evaluated in this order on the dataset: duplicates are skipped and
    // only the first `budget` unique configs count.
    static CompareRun replay(const Dataset& dataset, std::vector<SearchSpace::Index> configs,
                             std::int64_t budget);

private:
    // What the runs of one dataset share, built once.
    struct Prepared {
        std::shared_ptr<const DatasetProfile> profile; // null: replayed without one
        std::shared_ptr<const ConfigFeatureTable> features;
        std::shared_ptr<const TransferPrior> prior;
    };
    CompareRun runOne(const std::string& strategy, std::size_t dataset, std::uint64_t seed,
                      const Prepared& prepared) const;
    // The strategy's options from the settings, validated (throws naming a bad one).
    StrategyOptions optionsOf(const std::string& strategy) const;

    std::vector<std::shared_ptr<const Dataset>> m_datasets;
    CompareSettings m_settings;
};

} // namespace ts
