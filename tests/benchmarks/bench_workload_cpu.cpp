// One real workload on the cpu backend: the BERT-base GEMMs (resources/workloads/bert-base-gemm.json, batch
// 1, sequence 128) tuned with `gradient` and with `round_robin` at the same total budget, then measured
// against the kernel's default config and OpenBLAS in the same run. Usage: bench_workload_cpu [BUDGET=60]
// [ROUNDS=3] [BATCH=4] [SEED=1]
//
// 1. Reads the workload with THREADS == 1 added to every task, a fresh build cache in a scratch folder
// (shared
//    by both schedulers: the budget counts trials, not seconds) and a fresh records database per scheduler;
//    the worker runs with OPENBLAS_NUM_THREADS=1 and OMP_NUM_THREADS=1.
// 2. Tunes it with each scheduler for BUDGET trials over all tasks (default strategy, BATCH trials a round).
// 3. Measures, for every task and interleaved over ROUNDS rounds, the gradient-tuned best config, the
//    round-robin-tuned best config, the kernel's default config (the nearest valid config where the default
//    breaks the constraints at the task's size) and the kernel's reference (OpenBLAS cblas_sgemm) with the
//    same backend, worker, inputs, verification and timing; prints per task median times and the weighted
//    end-to-end time (sum of weight x median time) of each, with their ratios.
#include "backends/CpuBackend.h"
#include "session/KernelSessionTarget.h"
#include "space/ValueJson.h"
#include "store/RecordStore.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"
#include "util/Statistics.h"
#include "workload/WorkloadFile.h"
#include "workload/WorkloadRun.h"

#include "ScratchFolder.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ts;

namespace {

const std::vector<std::string> kSchedulers = {"gradient", "round_robin"};

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void setEnvironment(const char* name, const char* value) {
    if (::setenv(name, value, 1) != 0)
        throw Error(fmt::format("setenv({}) failed.", name));
}

// One line per round on stdout: the run takes minutes.
class ProgressPrinter : public WorkloadObserver {
public:
    explicit ProgressPrinter(const WorkloadPlan& plan) : m_plan(plan) {}
    void roundFinished(const WorkloadProgress& p) override {
        fmt::print(
            "  round {:>3}: {:>3}/{} trials, task {:<18} end-to-end {:.3f} ms ({} tasks without a best), "
            "{:.0f} s\n",
            p.rounds, p.trials, p.budget, p.task ? m_plan.tasks[*p.task].name : std::string("-"),
            p.endToEndMs, p.tasksWithoutBest, p.elapsedS);
        std::fflush(stdout);
    }
    void taskFailed(std::size_t task, const std::string& error) override {
        fmt::print("  task {} failed: {}\n", m_plan.tasks[task].name, error);
    }

private:
    const WorkloadPlan& m_plan;
};

struct TunedTask {
    std::int64_t trials = 0;
    nlohmann::json best; // config object {name: value}; null when the task has no best
    double bestMs = 0.0; // during tuning
};

struct TunedWorkload {
    std::vector<TunedTask> tasks;
    double wallS = 0.0;
    std::string stop;
};

// The best ok trial of each task's session, read back from the records.
std::vector<TunedTask> readBests(const RecordStore& store, std::int64_t workload) {
    const std::optional<WorkloadRecord> record = store.workload(workload);
    if (!record)
        throw Error(fmt::format("Workload {} is not in the records database.", workload));
    std::vector<TunedTask> tasks;
    for (const WorkloadTaskRecord& task : record->tasks) {
        TunedTask tuned;
        if (task.session) {
            for (const StoredTrial& trial : store.trials(*task.session)) {
                ++tuned.trials;
                if (trial.status == toString(MeasureStatus::Ok) &&
                    (tuned.best.is_null() || trial.objective < tuned.bestMs)) {
                    tuned.best = nlohmann::json::parse(trial.config);
                    tuned.bestMs = trial.objective;
                }
            }
        }
        tasks.push_back(std::move(tuned));
    }
    return tasks;
}

TunedWorkload tune(const std::filesystem::path& file, WorkloadDefaults defaults, const std::string& scheduler,
                   const std::filesystem::path& db) {
    defaults.scheduler = scheduler;
    const WorkloadPlan plan = WorkloadFile::read(file, defaults);
    WorkloadRun::validate(plan);
    RecordStore store(db);
    WorkloadRun::Hooks hooks;
    hooks.notice = [](const std::string& line) { fmt::print("  {}\n", line); };
    std::unique_ptr<WorkloadRun> run = WorkloadRun::create(plan, store, hooks);
    ProgressPrinter progress(plan);
    run->addObserver(&progress);
    const std::int64_t id = run->open();
    TunedWorkload tuned;
    const double start = now();
    tuned.stop = toString(run->run());
    tuned.wallS = now() - start;
    tuned.tasks = readBests(store, id);
    return tuned;
}

Config configOf(const SearchSpace& space, const nlohmann::json& object) {
    Config config;
    for (const Parameter& parameter : space.parameters()) {
        if (!object.contains(parameter.name))
            throw Error(fmt::format("A tuned config has no value for {}.", parameter.name));
        std::optional<Value> value = valueFromJson(object[parameter.name]);
        if (!value)
            throw Error(fmt::format("A tuned config's value of {} is not a value.", parameter.name));
        config.push_back(*value);
    }
    if (!space.indexOf(config))
        throw Error(fmt::format("The tuned config {} is not in the space.", object.dump()));
    return config;
}

// The kernel's default config; where it breaks the constraints at this size, the valid config that differs
// from it in the fewest parameters (then by the smallest total step in the value lists), as a user who
// fixes the default by hand would pick. `adjusted` says which it is.
Config defaultConfig(const SearchSpace& space, const Config& defaults, bool& adjusted) {
    const std::optional<SearchSpace::Index> index = space.indexOf(defaults);
    adjusted = !index || !space.isValid(*index);
    if (!adjusted)
        return defaults;
    if (!index)
        return space.config(space.validIndices().front());
    const std::vector<std::uint32_t> wanted = space.digits(*index);
    SearchSpace::Index best = space.validIndices().front();
    std::pair<int, long> bestDistance{std::numeric_limits<int>::max(), 0};
    for (SearchSpace::Index candidate : space.validIndices()) {
        const std::vector<std::uint32_t> digits = space.digits(candidate);
        std::pair<int, long> distance{0, 0};
        for (std::size_t i = 0; i < digits.size(); ++i) {
            distance.first += digits[i] != wanted[i];
            distance.second += std::labs(static_cast<long>(digits[i]) - static_cast<long>(wanted[i]));
        }
        if (distance < bestDistance)
            best = candidate, bestDistance = distance;
    }
    return space.config(best);
}

std::string describe(const SearchSpace& space, const Config& config) {
    std::string text;
    for (std::size_t i = 0; i < config.size(); ++i)
        text += fmt::format("{}{}={}", i ? "," : "", space.parameters()[i].name, toString(config[i]));
    return text;
}

std::string sizeText(const KernelSessionTarget& target) {
    std::string text;
    for (std::size_t i = 0; i < target.spec().problem.size() && i < target.size().size(); ++i)
        text += fmt::format("{}{}={}", i ? "," : "", target.spec().problem[i].name, target.size()[i]);
    return text;
}

// What is compared per task, in this order.
enum Column { kGradient, kRoundRobin, kDefault, kOpenBlas, kColumns };
const char* const kColumnNames[kColumns] = {"gradient", "round_robin", "default", "OpenBLAS"};

struct TaskComparison {
    std::unique_ptr<KernelSessionTarget> target;
    Config configs[3]; // gradient, round_robin, default
    bool defaultAdjusted = false;
    std::vector<double> ms[kColumns]; // one median per round
    double median[kColumns] = {};
};

void measureRound(TaskComparison& task, int round, const std::string& name) {
    auto& backend = dynamic_cast<CpuBackend&>(task.target->backend());
    const KernelSpec& spec = task.target->spec();
    const std::vector<Config> batch(std::begin(task.configs), std::end(task.configs));
    std::vector<Measurement> measured = backend.measure(batch);
    measured.push_back(
        backend.measureSource(spec.reference.source, spec.reference.flags, "tunescope_reference"));
    std::string line = fmt::format("  round {} {:<18}", round + 1, name);
    for (int c = 0; c < kColumns; ++c) {
        const Measurement& m = measured[static_cast<std::size_t>(c)];
        if (m.status != MeasureStatus::Ok)
            throw Error(fmt::format("The {} measurement of task {} failed: {} {}", kColumnNames[c], name,
                                    toString(m.status), m.log));
        task.ms[c].push_back(m.objective);
        line += fmt::format(" {} {:.4f} ms (cv {:.1f} %)", kColumnNames[c], m.objective,
                            m.metrics.at("cv") * 100);
    }
    fmt::print("{}\n", line);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
    try {
        const std::int64_t budget = argc > 1 ? std::atoll(argv[1]) : 60;
        const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
        const std::size_t batch = argc > 3 ? static_cast<std::size_t>(std::atoll(argv[3])) : 4;
        const std::uint64_t seed = argc > 4 ? static_cast<std::uint64_t>(std::atoll(argv[4])) : 1;
        if (budget < 1 || rounds < 1 || batch < 1)
            throw Error("BUDGET, ROUNDS and BATCH must be positive integers.");
        fmt::print("command: {}", argv[0]);
        for (int i = 1; i < argc; ++i)
            fmt::print(" {}", argv[i]);
        fmt::print("\n");

        setEnvironment("OPENBLAS_NUM_THREADS", "1");
        setEnvironment("OMP_NUM_THREADS", "1");
        setEnvironment("TUNESCOPE_WORKER", TUNESCOPE_WORKER);
        ScratchFolder scratch(std::filesystem::temp_directory_path() /
                              fmt::format("tunescope-bench-workload-cpu-{}", ::getpid()));
        const std::filesystem::path file =
            std::filesystem::path(TUNESCOPE_RESOURCES) / "workloads" / "bert-base-gemm.json";
        WorkloadDefaults defaults;
        defaults.search.constraints = {"THREADS == 1"};
        defaults.measurement.cacheDir = (scratch.path() / "cache").string();
        defaults.search.batchSize = batch;
        defaults.seed = seed;
        defaults.budget = budget;
        const WorkloadPlan plan = WorkloadFile::read(file, defaults);
        fmt::print("workload {} ({} tasks) from {}\n", plan.name, plan.tasks.size(), file.string());
        fmt::print(
            "configuration: backend cpu, constraint THREADS == 1 on every task, OPENBLAS_NUM_THREADS=1 "
            "OMP_NUM_THREADS=1, strategy {}, budget {} trials over all tasks per scheduler, batch {}, "
            "seed {}, schedulers {} (default options), fresh build cache {} shared by both, fresh "
            "records database per scheduler, {} comparison rounds; timing: warm-up 20 ms, 7 samples "
            "of >= 20 ms, caches flushed before each sample\n",
            StrategyRegistry::kDefaultAlias, budget, batch, seed, fmt::join(kSchedulers, " and "),
            defaults.measurement.cacheDir, rounds);
        std::fflush(stdout);

        std::vector<TunedWorkload> tuned;
        for (const std::string& scheduler : kSchedulers) {
            fmt::print("tuning with {}:\n", scheduler);
            std::fflush(stdout);
            tuned.push_back(tune(file, defaults, scheduler, scratch.path() / (scheduler + ".db")));
            fmt::print("{}: stopped by {} after {:.1f} s\n", scheduler, tuned.back().stop,
                       tuned.back().wallS);
        }

        std::vector<TaskComparison> tasks(plan.tasks.size());
        for (std::size_t t = 0; t < plan.tasks.size(); ++t) {
            TaskComparison& task = tasks[t];
            task.target = std::make_unique<KernelSessionTarget>(plan.tasks[t].plan);
            const SearchSpace& space = task.target->space();
            for (std::size_t s = 0; s < kSchedulers.size(); ++s) {
                const TunedTask& best = tuned[s].tasks[t];
                if (best.best.is_null())
                    throw Error(fmt::format("Task {} has no best config after tuning with {}.",
                                            plan.tasks[t].name, kSchedulers[s]));
                task.configs[s] = configOf(space, best.best);
            }
            task.configs[kDefault] =
                defaultConfig(space, task.target->kernelSpace().variant().defaults, task.defaultAdjusted);
        }
        fmt::print("device: {}\n", tasks.front().target->backend().deviceFingerprint());
        for (int r = 0; r < rounds; ++r)
            for (std::size_t t = 0; t < tasks.size(); ++t)
                measureRound(tasks[t], r, plan.tasks[t].name);

        fmt::print("\nper task: median over {} rounds of the median ms of 7 samples\n\n", rounds);
        fmt::print("| task | size | weight | trials gradient / round_robin | gradient ms | round_robin ms | "
                   "default ms | OpenBLAS ms | gradient / default | gradient / OpenBLAS | round_robin / "
                   "OpenBLAS | gradient / round_robin |\n");
        fmt::print("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        double endToEnd[kColumns] = {};
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            TaskComparison& task = tasks[t];
            for (int c = 0; c < kColumns; ++c) {
                task.median[c] = summarize(task.ms[c]).median;
                endToEnd[c] += plan.tasks[t].weight * task.median[c];
            }
            const double* m = task.median;
            fmt::print("| {} | {} | {:g} | {} / {} | {:.4f} | {:.4f} | {:.4f}{} | {:.4f} | {:.3f} | {:.3f} | "
                       "{:.3f} | {:.3f} |\n",
                       plan.tasks[t].name, sizeText(*task.target), plan.tasks[t].weight,
                       tuned[0].tasks[t].trials, tuned[1].tasks[t].trials, m[kGradient], m[kRoundRobin],
                       m[kDefault], task.defaultAdjusted ? " *" : "", m[kOpenBlas],
                       m[kGradient] / m[kDefault], m[kGradient] / m[kOpenBlas], m[kRoundRobin] / m[kOpenBlas],
                       m[kGradient] / m[kRoundRobin]);
        }
        const double* e = endToEnd;
        fmt::print(
            "| **end to end** (sum of weight x time) | | | {} / {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | "
            "{:.3f} | {:.3f} | {:.3f} | {:.3f} |\n",
            budget, budget, e[kGradient], e[kRoundRobin], e[kDefault], e[kOpenBlas],
            e[kGradient] / e[kDefault], e[kGradient] / e[kOpenBlas], e[kRoundRobin] / e[kOpenBlas],
            e[kGradient] / e[kRoundRobin]);
        fmt::print("\nend to end: round_robin / default = {:.3f}, default / OpenBLAS = {:.3f}\n",
                   e[kRoundRobin] / e[kDefault], e[kDefault] / e[kOpenBlas]);
        fmt::print(
            "* the kernel's default config breaks the constraints at this size: the nearest valid config "
            "is measured instead\n\nconfigs:\n");
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            const SearchSpace& space = tasks[t].target->space();
            fmt::print("  {}: gradient {} | round_robin {} | default {}\n", plan.tasks[t].name,
                       describe(space, tasks[t].configs[kGradient]),
                       describe(space, tasks[t].configs[kRoundRobin]),
                       describe(space, tasks[t].configs[kDefault]));
        }
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "bench_workload_cpu: {}\n", e.what());
        return 1;
    }
}
