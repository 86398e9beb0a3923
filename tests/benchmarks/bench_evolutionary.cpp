// Fraction of optimum reached by the evolutionary strategy against the exact expectation of random sampling,
// and the time its propose() takes, on replayed datasets. With --overhead, instead the time one propose(64)
// takes after 1000 observations (product mode). Usage: bench_evolutionary [--overhead] [--serial] [--seeds N]
// [--batch B] [--space product|constrained] [--option k=v]... DATASET...

#include "analysis/RandomBaseline.h"
#include "backends/ReplayBackend.h"
#include "records/DatasetReader.h"
#include "session/TuningSession.h"
#include "strategies/Evolutionary.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace {

const std::vector<std::int64_t> kBudgets{25, 50, 100, 200, 400};

// Forwards to an Evolutionary and times every propose() call.
class TimedEvolutionary : public ts::Strategy {
public:
    std::string name() const override { return m_strategy.name(); }
    void reset(const ts::StrategyContext& context) override { m_strategy.reset(context); }
    std::vector<ts::SearchSpace::Index> propose(std::size_t maxCount) override {
        const auto start = std::chrono::steady_clock::now();
        auto batch = m_strategy.propose(maxCount);
        const auto stop = std::chrono::steady_clock::now();
        proposeMs.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
        observedAt.push_back(m_observed);
        return batch;
    }
    void observe(std::span<const ts::Trial> trials) override {
        m_observed += trials.size();
        m_strategy.observe(trials);
    }
    std::vector<double> proposeMs;
    std::vector<std::size_t> observedAt;

private:
    ts::Evolutionary m_strategy;
    std::size_t m_observed = 0;
};

struct RunResult {
    std::vector<double> fraction; // per budget
    double maxMsAt400 = 0.0;      // slowest propose with at least 384 observations
};

RunResult runOnce(const std::shared_ptr<const ts::Dataset>& dataset, ts::SpaceMode mode, std::uint64_t seed,
                  std::size_t batch, const std::map<std::string, std::string>& given) {
    TimedEvolutionary strategy;
    strategy.reset({&dataset->space, mode, seed,
                    ts::StrategyOptions("evolutionary", ts::Evolutionary::optionTable(), given)});
    ts::ReplayBackend backend(dataset);
    ts::SessionSettings settings;
    settings.mode = mode;
    settings.batchSize = batch;
    settings.stop.maxEvaluations = kBudgets.back();
    ts::TuningSession session(dataset->space, backend, strategy, settings);
    session.run();
    const double optimum = *dataset->optimum();
    RunResult result;
    for (std::int64_t budget : kBudgets) {
        double best = std::numeric_limits<double>::infinity();
        for (const ts::Trial& trial : session.trials())
            if (trial.number < budget && trial.measurement.status == ts::MeasureStatus::Ok)
                best = std::min(best, trial.measurement.objective);
        result.fraction.push_back(std::isfinite(best) ? optimum / best : 0.0);
    }
    for (std::size_t k = 0; k < strategy.proposeMs.size(); ++k)
        if (strategy.observedAt[k] >= 384)
            result.maxMsAt400 = std::max(result.maxMsAt400, strategy.proposeMs[k]);
    return result;
}

// The fastest and slowest of `runs` propose(64) calls, each after 1000 observations gathered by the strategy
// itself, so its state is what a real run has.
void overhead(const std::shared_ptr<const ts::Dataset>& dataset,
              const std::map<std::string, std::string>& given, int runs) {
    std::vector<double> times;
    for (int run = 0; run < runs; ++run) {
        ts::Evolutionary strategy;
        strategy.reset({&dataset->space, ts::SpaceMode::Product, std::uint64_t(run),
                        ts::StrategyOptions("evolutionary", ts::Evolutionary::optionTable(), given)});
        ts::ReplayBackend backend(dataset);
        std::vector<ts::Trial> trials;
        while (trials.size() < 1000) {
            auto batch = strategy.propose(std::min<std::size_t>(64, 1000 - trials.size()));
            std::vector<ts::Config> configs;
            for (ts::SearchSpace::Index index : batch)
                configs.push_back(dataset->space.config(index));
            auto measurements = backend.measure(configs);
            std::vector<ts::Trial> fresh;
            for (std::size_t k = 0; k < batch.size(); ++k) {
                ts::Trial trial;
                trial.number = static_cast<std::int64_t>(trials.size() + k);
                trial.index = batch[k];
                trial.config = configs[k];
                trial.measurement = measurements[k];
                fresh.push_back(trial);
            }
            strategy.observe(fresh);
            trials.insert(trials.end(), fresh.begin(), fresh.end());
        }
        const auto start = std::chrono::steady_clock::now();
        const std::size_t size = strategy.propose(64).size();
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        fmt::print("run {}: {:.2f} ms for a batch of {}\n", run, times.back(), size);
    }
    fmt::print("propose(64) after 1000 observations: fastest {:.2f} ms, slowest {:.2f} ms\n",
               *std::min_element(times.begin(), times.end()), *std::max_element(times.begin(), times.end()));
}

} // namespace

int main(int argc, char** argv) {
    int seeds = 20;
    int overheadRuns = 0;
    // Timings are only meaningful with the runs one after another.
    auto policy = std::launch::async;
    std::size_t batch = 8;
    ts::SpaceMode mode = ts::SpaceMode::Product;
    std::map<std::string, std::string> given;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--overhead") {
            overheadRuns = 5;
        } else if (arg == "--seeds" && i + 1 < argc) {
            seeds = std::stoi(argv[++i]);
        } else if (arg == "--serial") {
            policy = std::launch::deferred;
        } else if (arg == "--batch" && i + 1 < argc) {
            batch = std::stoul(argv[++i]);
        } else if (arg == "--space" && i + 1 < argc) {
            mode =
                std::string(argv[++i]) == "constrained" ? ts::SpaceMode::Constrained : ts::SpaceMode::Product;
        } else if (arg == "--option" && i + 1 < argc) {
            const std::string kv = argv[++i];
            const auto eq = kv.find('=');
            given[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
        } else {
            files.push_back(arg);
        }
    }
    try {
        if (overheadRuns > 0) {
            for (const std::string& file : files)
                overhead(std::make_shared<const ts::Dataset>(ts::readDataset(file)), given, overheadRuns);
            return 0;
        }
        std::vector<double> meanEvo(kBudgets.size(), 0.0);
        std::vector<double> meanRandom(kBudgets.size(), 0.0);
        double slowest = 0.0;
        for (const std::string& file : files) {
            auto dataset = std::make_shared<const ts::Dataset>(ts::readDataset(file));
            std::vector<std::future<RunResult>> runs;
            for (int s = 0; s < seeds; ++s)
                runs.push_back(std::async(policy, runOnce, dataset, mode, std::uint64_t(s), batch, given));
            std::vector<double> fraction(kBudgets.size(), 0.0);
            for (auto& run : runs) {
                RunResult r = run.get();
                for (std::size_t b = 0; b < kBudgets.size(); ++b)
                    fraction[b] += r.fraction[b] / seeds;
                slowest = std::max(slowest, r.maxMsAt400);
            }
            std::vector<double> objectives;
            for (const auto& [index, m] : dataset->entries)
                if (m.status == ts::MeasureStatus::Ok)
                    objectives.push_back(m.objective);
            ts::RandomBaseline baseline(dataset->space.domainSize(mode), objectives);
            std::string evoLine, randomLine;
            for (std::size_t b = 0; b < kBudgets.size(); ++b) {
                const double expected = baseline.expectedFraction(static_cast<std::uint64_t>(kBudgets[b]));
                evoLine += fmt::format(" {:6.3f}", fraction[b]);
                randomLine += fmt::format(" {:6.3f}", expected);
                meanEvo[b] += fraction[b] / static_cast<double>(files.size());
                meanRandom[b] += expected / static_cast<double>(files.size());
            }
            fmt::print("{}\n  evo    {}\n  random {}\n", file, evoLine, randomLine);
        }
        std::string evoLine, randomLine;
        for (std::size_t b = 0; b < kBudgets.size(); ++b) {
            evoLine += fmt::format(" {:6.3f}", meanEvo[b]);
            randomLine += fmt::format(" {:6.3f}", meanRandom[b]);
        }
        fmt::print("mean (budgets 25/50/100/200/400)\n  evo    {}\n  random {}\n", evoLine, randomLine);
        fmt::print("slowest propose with >= 384 observations: {:.2f} ms (batch {})\n", slowest, batch);
    } catch (const ts::Error& e) {
        fmt::print(stderr, "bench_evolutionary: {}\n", e.what());
        return 1;
    }
    return 0;
}
