// Mean fraction of optimum of the classic strategies (simulated_annealing, genetic_algorithm, greedy_ils,
// dual_annealing) on replayed datasets, against the exact expectation of random sampling, with the
// strategies' own time per proposed config. Runs sessions directly (no registry).
// Usage: bench_classic [--seeds N] [--constrained] [DATASET...]
//   (default: the bundled GEMM RTX 3090 and convolution A100 datasets, relative to the repository root)

#include "analysis/Comparison.h"
#include "analysis/RandomBaseline.h"
#include "backends/ReplayBackend.h"
#include "records/DatasetReader.h"
#include "session/TuningSession.h"
#include "strategies/DualAnnealing.h"
#include "strategies/GeneticAlgorithm.h"
#include "strategies/GreedyIls.h"
#include "strategies/SimulatedAnnealing.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr std::int64_t kBudgets[] = {25, 50, 100, 200, 400};

struct Candidate {
    std::string name;
    std::function<std::unique_ptr<ts::Strategy>()> create;
};

std::vector<Candidate> candidates() {
    return {
        {"simulated_annealing", [] { return std::make_unique<ts::SimulatedAnnealing>(); }},
        {"genetic_algorithm", [] { return std::make_unique<ts::GeneticAlgorithm>(); }},
        {"greedy_ils", [] { return std::make_unique<ts::GreedyIls>(); }},
        {"dual_annealing", [] { return std::make_unique<ts::DualAnnealing>(); }},
    };
}

void benchDataset(const std::string& path, int seeds, ts::SpaceMode mode) {
    auto dataset = std::make_shared<const ts::Dataset>(ts::readDataset(path));
    const double optimum = *dataset->optimum();
    std::vector<double> objectives;
    for (const auto& [index, measurement] : dataset->entries)
        if (measurement.status == ts::MeasureStatus::Ok)
            objectives.push_back(measurement.objective);
    ts::RandomBaseline baseline(dataset->space.domainSize(mode), objectives);

    fmt::print("{} ({} mode, domain {}, {} seeds)\n", path, ts::toString(mode),
               dataset->space.domainSize(mode), seeds);
    std::string header = fmt::format("  {:<22}", "strategy");
    for (auto budget : kBudgets)
        header += fmt::format(" {:>7}", budget);
    fmt::print("{}   ms/config\n", header);
    std::string random = fmt::format("  {:<22}", "random (expected)");
    for (auto budget : kBudgets)
        random += fmt::format(" {:>7.4f}", baseline.expectedFraction(budget));
    fmt::print("{}\n", random);

    for (const auto& candidate : candidates()) {
        std::vector<double> sum(std::size(kBudgets), 0.0);
        double strategyMs = 0.0;
        std::size_t configs = 0;
        for (int seed = 0; seed < seeds; ++seed) {
            auto strategy = candidate.create();
            strategy->reset({&dataset->space, mode, static_cast<std::uint64_t>(seed), {}});
            ts::ReplayBackend backend(dataset);
            ts::SessionSettings settings;
            settings.mode = mode;
            settings.batchSize = 16;
            settings.stop.maxEvaluations = kBudgets[std::size(kBudgets) - 1];
            ts::TuningSession session(dataset->space, backend, *strategy, settings);
            session.run();
            ts::CompareRun run;
            double best = std::numeric_limits<double>::infinity();
            for (const ts::Trial& trial : session.trials()) {
                if (trial.measurement.status == ts::MeasureStatus::Ok)
                    best = std::min(best, trial.measurement.objective);
                run.bestSoFar.push_back(best);
                strategyMs += trial.strategyMs;
            }
            configs += session.trials().size();
            for (std::size_t b = 0; b < std::size(kBudgets); ++b)
                sum[b] += ts::Comparison::fractionAt(run, optimum, kBudgets[b]);
        }
        std::string line = fmt::format("  {:<22}", candidate.name);
        for (double value : sum)
            line += fmt::format(" {:>7.4f}", value / seeds);
        fmt::print("{}   {:.4f}\n", line, configs ? strategyMs / static_cast<double>(configs) : 0.0);
    }
}

} // namespace

int main(int argc, char** argv) {
    int seeds = 20;
    ts::SpaceMode mode = ts::SpaceMode::Product;
    std::vector<std::string> paths;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--seeds" && i + 1 < argc)
            seeds = std::stoi(argv[++i]);
        else if (arg == "--constrained")
            mode = ts::SpaceMode::Constrained;
        else
            paths.push_back(arg);
    }
    if (paths.empty())
        paths = {"resources/datasets/gemm_clblast_RTX_3090.json.gz",
                 "resources/datasets/convolution_milo_A100.json.gz"};
    try {
        for (const auto& path : paths)
            benchDataset(path, seeds, mode);
    } catch (const ts::Error& e) {
        fmt::print(stderr, "bench_classic: {}\n", e.what());
        return 1;
    }
    return 0;
}
