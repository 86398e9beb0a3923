// Fraction of optimum reached by the tpe strategy against the exact expectation of random sampling, and the
// time its propose() takes, on replayed datasets.
// Usage: bench_tpe [--serial] [--seeds N] [--batch B] [--space product|constrained] [--option k=v]...
// DATASET...

#include "analysis/RandomBaseline.h"
#include "backends/ReplayBackend.h"
#include "records/DatasetReader.h"
#include "session/TuningSession.h"
#include "strategies/Tpe.h"
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

// Forwards to a Tpe and times every propose() call.
class TimedTpe : public ts::Strategy {
public:
    std::string name() const override { return m_tpe.name(); }
    void reset(const ts::StrategyContext& context) override { m_tpe.reset(context); }
    std::vector<ts::SearchSpace::Index> propose(std::size_t maxCount) override {
        const auto start = std::chrono::steady_clock::now();
        auto batch = m_tpe.propose(maxCount);
        const auto stop = std::chrono::steady_clock::now();
        proposeMs.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
        observedAt.push_back(m_observed);
        return batch;
    }
    void observe(std::span<const ts::Trial> trials) override {
        m_observed += trials.size();
        m_tpe.observe(trials);
    }
    std::vector<double> proposeMs;
    std::vector<std::size_t> observedAt;

private:
    ts::Tpe m_tpe;
    std::size_t m_observed = 0;
};

struct RunResult {
    std::vector<double> fraction; // per budget
    double maxMsAt400 = 0.0;      // slowest propose with at least 384 observations
};

RunResult runOnce(const std::shared_ptr<const ts::Dataset>& dataset, ts::SpaceMode mode, std::uint64_t seed,
                  std::size_t batch, const std::map<std::string, std::string>& given) {
    TimedTpe strategy;
    strategy.reset({&dataset->space, mode, seed, ts::StrategyOptions("tpe", ts::Tpe::optionTable(), given)});
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

} // namespace

int main(int argc, char** argv) {
    int seeds = 20;
    // Timings are only meaningful with the runs one after another.
    auto policy = std::launch::async;
    std::size_t batch = 8;
    ts::SpaceMode mode = ts::SpaceMode::Product;
    std::map<std::string, std::string> given;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--seeds" && i + 1 < argc) {
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
        std::vector<double> meanTpe(kBudgets.size(), 0.0);
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
            std::string tpeLine, randomLine;
            for (std::size_t b = 0; b < kBudgets.size(); ++b) {
                const double expected = baseline.expectedFraction(static_cast<std::uint64_t>(kBudgets[b]));
                tpeLine += fmt::format(" {:6.3f}", fraction[b]);
                randomLine += fmt::format(" {:6.3f}", expected);
                meanTpe[b] += fraction[b] / static_cast<double>(files.size());
                meanRandom[b] += expected / static_cast<double>(files.size());
            }
            fmt::print("{}\n  tpe    {}\n  random {}\n", file, tpeLine, randomLine);
        }
        std::string tpeLine, randomLine;
        for (std::size_t b = 0; b < kBudgets.size(); ++b) {
            tpeLine += fmt::format(" {:6.3f}", meanTpe[b]);
            randomLine += fmt::format(" {:6.3f}", meanRandom[b]);
        }
        fmt::print("mean (budgets 25/50/100/200/400)\n  tpe    {}\n  random {}\n", tpeLine, randomLine);
        fmt::print("slowest propose with >= 384 observations: {:.2f} ms (batch {})\n", slowest, batch);
    } catch (const ts::Error& e) {
        fmt::print(stderr, "bench_tpe: {}\n", e.what());
        return 1;
    }
    return 0;
}
