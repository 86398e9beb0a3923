// Workload schedulers on replayed spaces: each dataset a task, weights drawn to mimic a model's mix, every
// scheduler, many seeds, the default strategy. Prints, per weighting and scheduler, the weighted end-to-end
// latency relative to the oracle (every task at its dataset's optimum) at checkpoints of total trials (mean
// over seeds), the trials needed to come within 5 % and 2 % of the oracle (median over the seeds, a seed
// that did not get there counting as more than the budget; and how many got there), and where the trials
// went (trials and best / optimum per task at the end).
// Usage: bench_workload [--seeds N] [--budget B] [--threads T] [--schedulers a,b/option=value,...]
//                       [--datasets DIR]
#include "datasets/DatasetReader.h"
#include "store/RecordStore.h"
#include "workload/SchedulerRegistry.h"
#include "workload/WorkloadRun.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace ts;

namespace {

// The tasks: brute-forced spaces of ../shared/datasets (MANIFEST.md there), one per kernel family and GPU.
const std::vector<std::pair<std::string, std::string>> kTasks = {
    {"gemm 3090", "kernel_tuner/gemm_clblast/RTX_3090.json.gz"},
    {"conv 3090", "kernel_tuner/convolution_2021/RTX_3090.json.gz"},
    {"conv A100", "kernel_tuner/convolution_milo/A100.json.gz"},
    {"dedisp A100", "kernel_tuner/dedispersion_milo/A100.json.gz"},
    {"pnpoly 3090", "kernel_tuner/pnpoly/RTX_3090.json.gz"},
    {"conv W6600", "kernel_tuner/convolution_milo/W6600.json.gz"},
    {"gemm 2080Ti", "kernel_tuner/gemm_clblast/RTX_2080_Ti.json.gz"},
    {"pnpoly 3060", "kernel_tuner/pnpoly/RTX_3060_laptop.json.gz"},
};

// Calls per inference. Times differ by two orders of magnitude between the spaces (dedispersion ~50 ms,
// convolution ~0.5 ms), so each mix says which tasks dominate the end-to-end time.
struct Weighting {
    std::string name;
    std::vector<double> weights;
};
const std::vector<Weighting> kWeightings = {
    // A few heavy operators (the GEMMs and convolutions of every layer) and many light ones.
    {"few heavy, many light", {96, 48, 24, 0.1, 2, 1, 1, 1}},
    // Every task counts about the same in the end-to-end time.
    {"balanced time", {10, 100, 90, 1, 6, 30, 5, 2}},
    // One operator is most of the time.
    {"one dominant", {1, 400, 1, 0.05, 1, 1, 1, 1}},
};

struct Curve {
    std::vector<std::pair<std::int64_t, double>> points; // (total trials, end-to-end / oracle)
    std::vector<std::int64_t> trialsPerTask;             // at the end
    std::vector<double> bestOverOptimum;                 // per task, at the end
};

Curve runOnce(const Weighting& weighting, const std::string& scheduler, std::uint64_t seed,
              std::int64_t budget, const std::filesystem::path& datasets, const std::filesystem::path& db,
              const std::map<std::string, std::shared_ptr<const Dataset>>& loaded) {
    WorkloadPlan plan;
    plan.name = weighting.name;
    plan.backend = "replay";
    // "name/option=value/...": a scheduler with options of its own.
    std::stringstream spec(scheduler);
    std::getline(spec, plan.scheduler, '/');
    for (std::string option; std::getline(spec, option, '/');)
        plan.schedulerOptions[option.substr(0, option.find('='))] = option.substr(option.find('=') + 1);
    plan.seed = seed;
    plan.budget = budget;
    for (std::size_t i = 0; i < kTasks.size(); ++i) {
        WorkloadTaskPlan task;
        task.name = kTasks[i].first;
        task.weight = weighting.weights[i];
        task.plan.dataset = (datasets / kTasks[i].second).string();
        task.plan.seed = seed;
        task.plan.budget = budget;
        task.plan.cold = true; // the schedulers compared, as measured before warm starts were the default
        plan.tasks.push_back(task);
    }
    std::filesystem::remove(db);
    RecordStore store(db);
    WorkloadRun::Hooks hooks;
    hooks.dataset = [&](const std::string& path) {
        auto it = loaded.find(std::filesystem::weakly_canonical(path).string());
        return it != loaded.end() ? it->second : nullptr;
    };
    std::unique_ptr<WorkloadRun> run = WorkloadRun::create(plan, store, hooks);
    struct Collect : WorkloadObserver {
        Curve curve;
        std::vector<double> best = std::vector<double>(kTasks.size(), INFINITY);
        void trialFinished(std::size_t task, const Trial& trial) override {
            if (trial.measurement.status == MeasureStatus::Ok)
                best[task] = std::min(best[task], trial.measurement.objective);
        }
        void roundFinished(const WorkloadProgress& p) override {
            if (p.oracleMs && p.tasksWithoutBest == 0)
                curve.points.emplace_back(p.trials, p.endToEndMs / *p.oracleMs);
            curve.trialsPerTask = p.trialsPerTask;
        }
    } collect;
    run->addObserver(&collect);
    run->open();
    run->run();
    for (std::size_t i = 0; i < kTasks.size(); ++i)
        collect.curve.bestOverOptimum.push_back(
            collect.best[i] / *loaded.at((datasets / kTasks[i].second).string())->optimum());
    return collect.curve;
}

double valueAt(const Curve& curve, std::int64_t trials) {
    double value = NAN;
    for (const auto& [spent, ratio] : curve.points)
        if (spent <= trials)
            value = ratio;
    return value;
}

std::optional<std::int64_t> trialsToWithin(const Curve& curve, double within) {
    for (const auto& [spent, ratio] : curve.points)
        if (ratio <= 1.0 + within)
            return spent;
    return std::nullopt;
}

double median(std::vector<double> values) {
    if (values.empty())
        return NAN;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

} // namespace

int main(int argc, char** argv) {
    int seeds = 30;
    std::int64_t budget = 480;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::string schedulerList = "round_robin,proportional,gradient";
    std::filesystem::path datasets = std::filesystem::path(TUNESCOPE_RESOURCES) / "../../shared/datasets";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--seeds")
            seeds = std::atoi(argv[i + 1]);
        else if (flag == "--budget")
            budget = std::atoll(argv[i + 1]);
        else if (flag == "--threads")
            threads = static_cast<unsigned>(std::atoi(argv[i + 1]));
        else if (flag == "--schedulers")
            schedulerList = argv[i + 1];
        else if (flag == "--datasets")
            datasets = argv[i + 1];
    }
    datasets = std::filesystem::weakly_canonical(datasets);
    std::vector<std::string> schedulers;
    std::stringstream stream(schedulerList);
    for (std::string name; std::getline(stream, name, ',');)
        schedulers.push_back(name);

    std::map<std::string, std::shared_ptr<const Dataset>> loaded;
    for (const auto& [name, file] : kTasks) {
        const std::string path = (datasets / file).string();
        loaded[path] = std::make_shared<const Dataset>(readDataset(path));
        fmt::print("task {:<12} {} (optimum {:.6g} ms)\n", name, file, *loaded[path]->optimum());
    }
    fmt::print("{} tasks, budget {} trials, batch 8, default strategy, {} seeds, {} threads\n\n",
               kTasks.size(), budget, seeds, threads);

    const std::filesystem::path scratch =
        std::filesystem::temp_directory_path() / fmt::format("bench_workload.{}", ::getpid());
    std::filesystem::create_directories(scratch);
    const auto started = std::chrono::steady_clock::now();
    for (const Weighting& weighting : kWeightings) {
        std::map<std::string, std::vector<Curve>> curves;
        for (const std::string& scheduler : schedulers) {
            std::vector<Curve> runs(static_cast<std::size_t>(seeds));
            std::atomic<int> nextSeed{0};
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < threads; ++t)
                pool.emplace_back([&, t] {
                    for (int s; (s = nextSeed++) < seeds;)
                        runs[static_cast<std::size_t>(s)] =
                            runOnce(weighting, scheduler, static_cast<std::uint64_t>(s) + 1, budget, datasets,
                                    scratch / fmt::format("{}.db", t), loaded);
                });
            for (std::thread& thread : pool)
                thread.join();
            curves[scheduler] = std::move(runs);
        }
        fmt::print("## {} (weights {})\n\n", weighting.name, fmt::join(weighting.weights, ", "));
        std::vector<std::int64_t> checkpoints;
        for (std::int64_t t = 40; t <= budget; t *= 2)
            checkpoints.push_back(t);
        if (checkpoints.back() != budget)
            checkpoints.push_back(budget);
        fmt::print("| scheduler |");
        for (std::int64_t t : checkpoints)
            fmt::print(" {} |", t);
        fmt::print(" trials to 5 % (median; seeds that got there) | trials to 2 % (median; seeds) |\n|---|");
        for (std::size_t i = 0; i < checkpoints.size() + 2; ++i)
            fmt::print("---|");
        fmt::print("\n");
        for (const std::string& scheduler : schedulers) {
            fmt::print("| `{}` |", scheduler);
            for (std::int64_t t : checkpoints) {
                double sum = 0;
                int n = 0;
                for (const Curve& curve : curves[scheduler])
                    if (double v = valueAt(curve, t); std::isfinite(v))
                        sum += v, ++n;
                fmt::print(" {} |", n > 0 ? fmt::format("{:.4f}", sum / n) : std::string("-"));
            }
            for (double within : {0.05, 0.02}) {
                // A seed that did not get there within the budget counts as more than the budget: the
                // median over every seed, "> budget" when half of them or more did not.
                std::vector<double> needed;
                for (const Curve& curve : curves[scheduler])
                    needed.push_back(trialsToWithin(curve, within)
                                         ? static_cast<double>(*trialsToWithin(curve, within))
                                         : INFINITY);
                const double middle = median(needed);
                const auto reached = std::count_if(needed.begin(), needed.end(),
                                                   [](double trials) { return std::isfinite(trials); });
                fmt::print(" {} ({}/{}) |",
                           std::isfinite(middle) ? fmt::format("{:.0f}", middle)
                                                 : fmt::format("> {}", budget),
                           reached, seeds);
            }
            fmt::print("\n");
        }
        fmt::print(
            "\nWhere the trials went (mean over the seeds): trials, and best / optimum at the end\n\n");
        fmt::print("| scheduler |");
        for (const auto& task : kTasks)
            fmt::print(" {} |", task.first);
        fmt::print("\n|---|");
        for (std::size_t i = 0; i < kTasks.size(); ++i)
            fmt::print("---|");
        fmt::print("\n");
        for (const std::string& scheduler : schedulers) {
            fmt::print("| `{}` |", scheduler);
            for (std::size_t i = 0; i < kTasks.size(); ++i) {
                double trials = 0, ratio = 0;
                for (const Curve& curve : curves[scheduler]) {
                    trials += static_cast<double>(curve.trialsPerTask.at(i));
                    ratio += curve.bestOverOptimum.at(i);
                }
                const double n = static_cast<double>(curves[scheduler].size());
                fmt::print(" {:.0f}, {:.3f} |", trials / n, ratio / n);
            }
            fmt::print("\n");
        }
        fmt::print("\n");
        std::fflush(stdout);
    }
    std::filesystem::remove_all(scratch);
    fmt::print("wall time {:.0f} s\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}
