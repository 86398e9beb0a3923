// Strategy overhead: time to obtain 64 configs to measure after 1000 observations on a replayed space.
// Strategies that return fewer per call (xgb and evolutionary cap a batch at batch_max, 8 by default) are
// asked again, without observing in between, until 64 are gathered (or they have nothing left): the time is
// that of all the calls, and the calls are printed with it.
// Usage: bench_overhead [DATASET] [STRATEGY[:OPTION=VALUE],...] [RUNS] [PRIOR_DATASET]
// With PRIOR_DATASET (the same kernel measured elsewhere), strategies that use a transfer prior get one,
// built once before the runs (its build time is printed apart).
#include "backends/ReplayBackend.h"
#include "datasets/DatasetReader.h"
#include "datasets/TransferSources.h"
#include "strategies/StrategyRegistry.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <map>
#include <random>
#include <sstream>

using namespace ts;

constexpr std::size_t kWanted = 64; // configs per measured batch

int main(int argc, char** argv) {
    std::string path = argc > 1 ? argv[1] : "resources/datasets/gemm_clblast_RTX_3090.json.gz";
    std::string list = argc > 2 ? argv[2] : "";
    int runs = argc > 3 ? std::atoi(argv[3]) : 5;
    auto dataset = std::make_shared<const Dataset>(readDataset(path));
    std::shared_ptr<const TransferPrior> prior;
    if (argc > 4) {
        auto source = std::make_shared<const Dataset>(readDataset(argv[4]));
        auto started = std::chrono::steady_clock::now();
        prior = leaveOneOutPrior({source, dataset}, 1, 1);
        fmt::print("transfer prior from {}: built in {:.2f} s\n", argv[4],
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    }
    const auto& registry = StrategyRegistry::builtin();
    std::vector<std::string> names;
    if (list.empty()) {
        names = registry.names();
    } else {
        std::stringstream stream(list);
        for (std::string name; std::getline(stream, name, ',');)
            names.push_back(name);
    }
    fmt::print("dataset {} ({} configs in the product), product mode, 1000 observations, then propose() "
               "called until {} configs are gathered (no observe() between the calls), {} runs\n",
               path, dataset->space.productSize(), kWanted, runs);
    for (const std::string& entry : names) {
        // "name" or "name:option=value" (one option, e.g. xgb:restrictions=false).
        std::string name = entry.substr(0, entry.find(':'));
        std::map<std::string, std::string> given;
        if (auto colon = entry.find(':'); colon != std::string::npos) {
            std::string option = entry.substr(colon + 1);
            given[option.substr(0, option.find('='))] = option.substr(option.find('=') + 1);
        }
        std::vector<double> times;
        std::size_t calls = 0, gathered = 0, largest = 0; // of the last run (the same in every run)
        for (int run = 0; run < runs; ++run) {
            auto strategy = registry.create(name);
            strategy->reset({&dataset->space, SpaceMode::Product, std::uint64_t(run),
                             registry.options(name, given), prior});
            ReplayBackend backend(dataset);
            // Observations come from the strategy itself, so its internal state is what a real run has.
            std::vector<Trial> trials;
            while (trials.size() < 1000) {
                auto batch = strategy->propose(std::min<std::size_t>(64, 1000 - trials.size()));
                if (batch.empty())
                    break;
                std::vector<Config> configs;
                for (auto index : batch)
                    configs.push_back(dataset->space.config(index));
                auto measured = backend.measure(configs);
                std::vector<Trial> fresh;
                for (std::size_t i = 0; i < batch.size(); ++i) {
                    Trial t;
                    t.number = static_cast<std::int64_t>(trials.size() + i);
                    t.index = batch[i];
                    t.config = configs[i];
                    t.measurement = measured[i];
                    fresh.push_back(t);
                }
                strategy->observe(fresh);
                trials.insert(trials.end(), fresh.begin(), fresh.end());
            }
            calls = gathered = largest = 0;
            auto start = std::chrono::steady_clock::now();
            while (gathered < kWanted) {
                std::size_t got = strategy->propose(kWanted - gathered).size();
                if (got == 0)
                    break;
                ++calls;
                gathered += got;
                largest = std::max(largest, got);
            }
            times.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(times.begin(), times.end());
        fmt::print("{:<30} median {:8.2f} ms  min {:8.2f} ms  max {:8.2f} ms  ({} configs in {} call{}, at "
                   "most {} per call)\n",
                   entry, times[times.size() / 2], times.front(), times.back(), gathered, calls,
                   calls == 1 ? "" : "s", largest);
    }
}
