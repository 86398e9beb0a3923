#include "analysis/Comparison.h"

#include "analysis/RandomBaseline.h"
#include "datasets/DatasetProfile.h"
#include "datasets/ProfileFeatures.h"
#include "datasets/TransferSources.h"
#include "session/PreparedSession.h"
#include "strategies/StrategyRegistry.h"
#include "trial/BestSoFar.h"
#include "util/Error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_set>

namespace ts {

namespace {

constexpr double kNothingFound = BestSoFar::kNothingYet;

std::vector<double> okObjectives(const Dataset& dataset) {
    std::vector<double> objectives;
    for (const auto& [index, measurement] : dataset.entries)
        if (measurement.status == MeasureStatus::Ok)
            objectives.push_back(measurement.objective);
    return objectives;
}

} // namespace

Comparison::Comparison(std::vector<std::shared_ptr<const Dataset>> datasets, CompareSettings settings)
    : m_datasets(std::move(datasets)), m_settings(std::move(settings)) {
    std::sort(m_settings.budgets.begin(), m_settings.budgets.end());
}

StrategyOptions Comparison::optionsOf(const std::string& strategy) const {
    auto options = m_settings.options.find(strategy);
    return StrategyRegistry::builtin().options(strategy, options == m_settings.options.end()
                                                             ? std::map<std::string, std::string>{}
                                                             : options->second);
}

// One run through the one way a session runs (PreparedSession), keeping no record.
CompareRun Comparison::runOne(const std::string& strategyName, std::size_t datasetIndex, std::uint64_t seed,
                              const Prepared& prepared) const {
    const Dataset& dataset = *m_datasets[datasetIndex];
    SessionPlan plan;
    plan.backend = "replay";
    plan.dataset = dataset.path.empty() ? dataset.kernelName : dataset.path.string();
    plan.strategy = strategyName;
    auto options = m_settings.options.find(strategyName);
    if (options != m_settings.options.end())
        plan.options = options->second;
    plan.seed = seed;
    plan.cold = true; // compare's warm starts are its own (prepared.prior), reported apart
    plan.mode = m_settings.mode;
    plan.batchSize = m_settings.batchSize;
    plan.budget = m_settings.budgets.empty()
                      ? static_cast<std::int64_t>(dataset.space.domainSize(m_settings.mode))
                      : m_settings.budgets.back();
    PreparedSession::Hooks hooks;
    hooks.dataset = m_datasets[datasetIndex];
    hooks.profile = prepared.profile;
    hooks.staticFeatures = prepared.features;
    hooks.prior = prepared.prior;
    auto session = PreparedSession::unrecorded(plan, std::move(hooks));
    session->run();
    const std::vector<Trial>& trials = session->session().trials();
    CompareRun run{strategyName, datasetIndex, seed, {}, BestSoFar::of(trials).curve(), 0.0};
    for (const Trial& trial : trials) {
        run.configs.push_back(trial.index);
        run.strategySeconds += trial.strategyMs / 1e3;
    }
    return run;
}

double Comparison::fractionAt(const CompareRun& run, double optimum, std::int64_t budget) {
    if (run.bestSoFar.empty() || budget <= 0)
        return 0.0;
    std::size_t at = std::min<std::size_t>(budget, run.bestSoFar.size()) - 1;
    double best = run.bestSoFar[at];
    return std::isfinite(best) ? optimum / best : 0.0;
}

double Comparison::methodologyScore(const Dataset& dataset, SpaceMode mode,
                                    const std::vector<const CompareRun*>& runs, std::int64_t horizon) {
    auto optimum = dataset.optimum();
    auto median = dataset.medianObjective();
    if (!optimum || !median || runs.empty() || horizon <= 0)
        return 0.0;
    RandomBaseline baseline(dataset.space.domainSize(mode), okObjectives(dataset));
    double total = 0.0;
    std::int64_t counted = 0;
    for (std::int64_t t = 1; t <= horizon; ++t) {
        double b = baseline.expectedBest(t, *median);
        if (b - *optimum <= 1e-12 * *optimum)
            continue;
        double s = 0.0;
        for (const CompareRun* run : runs) {
            std::size_t at = std::min<std::size_t>(t, run->bestSoFar.size());
            double best = at == 0 ? kNothingFound : run->bestSoFar[at - 1];
            s += std::isfinite(best) ? std::min(best, *median) : *median;
        }
        s /= static_cast<double>(runs.size());
        total += (b - s) / (b - *optimum);
        ++counted;
    }
    return counted == 0 ? 0.0 : total / static_cast<double>(counted);
}

CompareResult Comparison::run(const ProgressCallback& progress, const std::atomic<bool>* cancel) const {
    // Per strategy, whether it asks for hardware features.
    std::map<std::string, bool> aware;
    for (const std::string& name : m_settings.strategies)
        aware[name] = optionsOf(name).isOn("hardware"); // throws naming a bad option first
    const bool hardware = std::any_of(aware.begin(), aware.end(), [](const auto& a) { return a.second; });
    // The static profile and features of every dataset, read and checked once before any run starts. Without
    // a strategy that uses them, the runs replay without a profile (null: none), as they score the same.
    std::vector<std::shared_ptr<const DatasetProfile>> profiles(m_datasets.size());
    std::vector<std::shared_ptr<const ConfigFeatureTable>> features(m_datasets.size());
    if (hardware)
        for (std::size_t d = 0; d < m_datasets.size(); ++d) {
            profiles[d] = DatasetProfile::companionOf(*m_datasets[d]);
            features[d] = requireProfileFeatures(*m_datasets[d], profiles[d].get(), m_settings.mode);
        }
    struct Job {
        std::string strategy;
        std::size_t dataset;
        std::uint64_t seed;
    };
    std::vector<Job> jobs;
    for (std::size_t d = 0; d < m_datasets.size(); ++d)
        for (const std::string& strategy : m_settings.strategies)
            for (int r = 0; r < m_settings.repeats; ++r)
                jobs.push_back({strategy, d, m_settings.seed + static_cast<std::uint64_t>(r)});

    auto started = std::chrono::steady_clock::now();
    unsigned threads =
        m_settings.threads ? m_settings.threads : std::max(1u, std::thread::hardware_concurrency());
    // As tune's warm start: hardware-aware where a dataset and its sources have static profiles.
    std::vector<std::shared_ptr<const TransferPrior>> priors(m_datasets.size());
    if (m_settings.transfer && !m_settings.priors.empty())
        throw Error(
            "Warm starts come from the other datasets (transfer) or from the priors given, not both.");
    if (m_settings.transfer || !m_settings.priors.empty())
        for (std::size_t d = 0; d < m_datasets.size() && !(cancel && *cancel); ++d)
            // One OpenMP thread: its threads spin badly on a busy machine.
            priors[d] = m_settings.transfer ? leaveOneOutPrior(m_datasets, d, 1, true)
                                            : namedPrior(*m_datasets[d], m_settings.priors, 1, true);
    std::vector<std::optional<CompareRun>> runs(jobs.size());
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::mutex progressMutex;
    std::exception_ptr failure;
    auto worker = [&] {
        while (true) {
            std::size_t i = next++;
            if (i >= jobs.size() || (cancel && *cancel))
                return;
            try {
                const std::size_t d = jobs[i].dataset;
                const bool wants = aware.at(jobs[i].strategy);
                runs[i] = runOne(jobs[i].strategy, d, jobs[i].seed,
                                 {profiles[d], wants ? features[d] : nullptr, priors[d]});
            } catch (...) {
                std::lock_guard lock(progressMutex);
                failure = std::current_exception();
                next = jobs.size();
                return;
            }
            std::size_t finished = ++done;
            if (progress) {
                std::lock_guard lock(progressMutex);
                progress(finished, jobs.size());
            }
        }
    };
    {
        std::vector<std::jthread> pool;
        for (unsigned t = 0; t < std::min<std::size_t>(threads, jobs.size()); ++t)
            pool.emplace_back(worker);
    }
    if (failure)
        std::rethrow_exception(failure);

    std::vector<CompareRun> finished;
    for (auto& run : runs)
        if (run)
            finished.push_back(std::move(*run));
    CompareResult result = score(m_datasets, m_settings, std::move(finished));
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

CompareResult Comparison::score(const std::vector<std::shared_ptr<const Dataset>>& datasets,
                                const CompareSettings& settings, std::vector<CompareRun> runs) {
    CompareResult result;
    result.runs = std::move(runs);
    std::vector<std::int64_t> budgets = settings.budgets;
    std::sort(budgets.begin(), budgets.end());
    for (std::size_t d = 0; d < datasets.size(); ++d) {
        const Dataset& dataset = *datasets[d];
        RandomBaseline baseline(dataset.space.domainSize(settings.mode), okObjectives(dataset));
        std::vector<double> expected;
        for (std::int64_t b : budgets)
            expected.push_back(baseline.expectedFraction(b));
        result.randomExpectation.push_back(expected);
    }
    for (const std::string& strategy : settings.strategies) {
        std::vector<std::vector<double>> perDataset(datasets.size(),
                                                    std::vector<double>(budgets.size(), 0.0));
        std::vector<std::vector<double>> used = perDataset;
        std::vector<double> mean(budgets.size(), 0.0);
        std::vector<double> meanUsed(budgets.size(), 0.0);
        double total = 0.0;
        // Means over the datasets the strategy has finished runs on: a dataset whose runs were cancelled
        // before any finished is no evidence, not a score of zero.
        std::size_t scored = 0;
        for (std::size_t d = 0; d < datasets.size(); ++d) {
            double optimum = datasets[d]->optimum().value_or(0.0);
            std::vector<const CompareRun*> mine;
            for (const CompareRun& run : result.runs)
                if (run.strategy == strategy && run.dataset == d)
                    mine.push_back(&run);
            if (mine.empty())
                continue;
            ++scored;
            std::int64_t longest = 0;
            for (const CompareRun* run : mine)
                longest = std::max(longest, run->budgetGiven);
            const auto given = [&](std::int64_t budget) {
                std::vector<const CompareRun*> selected;
                for (const CompareRun* run : mine)
                    if (run->budgetGiven == budget)
                        selected.push_back(run);
                return selected;
            };
            const std::vector<const CompareRun*> main = given(longest);
            const double space = static_cast<double>(datasets[d]->space.domainSize(settings.mode));
            for (std::size_t b = 0; b < budgets.size(); ++b) {
                std::vector<const CompareRun*> runs = given(budgets[b]);
                if (runs.empty())
                    runs = main;
                double sum = 0.0, evaluated = 0.0;
                for (const CompareRun* run : runs) {
                    sum += fractionAt(*run, optimum, budgets[b]);
                    evaluated += static_cast<double>(
                        std::min<std::int64_t>(static_cast<std::int64_t>(run->configs.size()), budgets[b]));
                }
                const double count = static_cast<double>(runs.size());
                perDataset[d][b] = sum / count;
                used[d][b] =
                    evaluated / count / std::max(1.0, std::min(space, static_cast<double>(budgets[b])));
                mean[b] += perDataset[d][b];
                meanUsed[b] += used[d][b];
            }
            total +=
                methodologyScore(*datasets[d], settings.mode, main, budgets.empty() ? 0 : budgets.back());
        }
        if (scored > 0) {
            for (std::size_t b = 0; b < budgets.size(); ++b) {
                mean[b] /= static_cast<double>(scored);
                meanUsed[b] /= static_cast<double>(scored);
            }
            total /= static_cast<double>(scored);
        }
        result.fraction[strategy] = std::move(perDataset);
        result.meanFraction[strategy] = std::move(mean);
        result.budgetUsed[strategy] = std::move(used);
        result.meanBudgetUsed[strategy] = std::move(meanUsed);
        result.score[strategy] = total;
    }
    return result;
}

CompareRun Comparison::replay(const Dataset& dataset, std::vector<SearchSpace::Index> configs,
                              std::int64_t budget) {
    CompareRun run;
    std::unordered_set<SearchSpace::Index> seen;
    BestSoFar best;
    for (SearchSpace::Index index : configs) {
        if (static_cast<std::int64_t>(run.configs.size()) >= budget)
            break;
        if (!seen.insert(index).second)
            continue;
        run.configs.push_back(index);
        auto entry = dataset.entries.find(index);
        if (entry != dataset.entries.end())
            best.add(entry->second);
        else
            best.add(MeasureStatus::Invalid, 0.0);
    }
    run.bestSoFar = best.curve();
    return run;
}

} // namespace ts
