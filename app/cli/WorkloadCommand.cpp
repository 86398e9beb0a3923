#include "CliSupport.h"
#include "Commands.h"
#include "InterruptSignals.h"
#include "KernelTarget.h"
#include "MpiJob.h"
#include "SharedOption.h"
#include "WorkloadPrinter.h"

#include "store/RecordStore.h"
#include "util/Error.h"
#include "workload/SchedulerRegistry.h"
#include "workload/WorkloadFile.h"
#include "workload/WorkloadRun.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace ts::cli {

namespace {

struct WorkloadOptions {
    std::string file;
    std::int64_t id = 0;
    std::shared_ptr<SharedOption> db; // before or after the subcommand
    bool json = false;
    double dbWait = 60.0;
    // workload tune: what the command line gives every task (set only where a flag was given)
    std::int64_t budget = 0;
    std::string scheduler = "gradient";
    std::vector<std::string> schedulerOptions;
    std::string strategy;
    std::vector<std::string> options;
    std::uint64_t seed = 0;
    std::string space;
    std::size_t batchSize = 8;
    std::string backend;
    std::vector<std::string> constraints;
    bool cold = false;
    bool transfer = false;
    KernelTuneOptions measurement;
    bool mpi = false; // --mpi: this process is a rank of an MPI job
    double replayDelayMs = 0.0;
};

std::filesystem::path databasePath(const WorkloadOptions& o) {
    const std::string db = o.db->value();
    return db.empty() ? RecordStore::defaultPath() : std::filesystem::path(db);
}

std::unique_ptr<RecordStore> openStore(const WorkloadOptions& o, bool mustExist) {
    if (!(o.dbWait >= 0) || !std::isfinite(o.dbWait))
        throw Error(fmt::format("--db-wait {} is not a number of seconds of 0 or more.", o.dbWait));
    const std::filesystem::path path = databasePath(o);
    if (mustExist && !std::filesystem::exists(path))
        throw Error(fmt::format("The records database {} does not exist.", path.string()));
    auto store = std::make_unique<RecordStore>(path);
    store->setBusyTimeout(std::chrono::milliseconds(std::llround(o.dbWait * 1000.0)));
    return store;
}

WorkloadRun::Hooks hooks() {
    WorkloadRun::Hooks hooks;
    hooks.notice = [](const std::string& line) {
        fmt::print(stderr, "{}\n", line);
        std::fflush(stderr);
    };
    return hooks;
}

WorkloadDefaults defaultsOf(const WorkloadOptions& o, const CLI::App& cmd) {
    auto given = [&](const char* flag) { return cmd.get_option(flag)->count() > 0; };
    WorkloadDefaults d;
    if (given("--backend"))
        d.backend = o.backend;
    if (given("--strategy"))
        d.search.strategy = o.strategy;
    d.search.options = parseKeyValues(o.options, "--option");
    if (given("--space"))
        d.search.mode = parseSpaceMode(o.space);
    if (given("--batch-size"))
        d.search.batchSize = o.batchSize;
    d.search.constraints = o.constraints;
    if (o.cold)
        d.search.cold = true;
    if (o.transfer)
        d.search.transfer = true;
    d.measurement = o.measurement;
    d.replayDelayMs = o.replayDelayMs;
    d.seed = o.seed;
    d.budget = o.budget;
    d.scheduler = o.scheduler;
    d.schedulerOptions = parseKeyValues(o.schedulerOptions, "--scheduler-option");
    return d;
}

void listWorkloads(const WorkloadOptions& o) {
    const std::filesystem::path path = databasePath(o);
    if (!std::filesystem::exists(path))
        throw Error(fmt::format("The records database {} does not exist.", path.string()));
    RecordStore store(path, DatabaseAccess::ReadOnly);
    for (const WorkloadRecord& workload : store.workloads()) {
        std::int64_t trials = 0;
        for (const WorkloadTaskRecord& task : workload.tasks)
            if (task.session)
                trials += store.trialCount(*task.session);
        fmt::print("{:>4}  {:<28} {:<8} {:>3} tasks  {:>6}/{:<6} trials  {:<13} {}\n", workload.id,
                   workload.name, workload.device, workload.tasks.size(), trials, workload.budget,
                   workload.scheduler, workload.status);
    }
}

void addJsonFlag(CLI::App& cmd, WorkloadOptions& o) {
    cmd.add_flag("--json", o.json, "Machine-readable table on stdout");
}

void addMpiFlag(CLI::App& cmd, WorkloadOptions& o) {
    cmd.add_flag("--mpi", o.mpi,
                 "Run as one rank of an MPI job (mpirun -np N tunescope-cli workload tune ... --mpi): rank 0 "
                 "runs the workload and keeps the records, the other ranks measure (docs/cluster.md)");
}

} // namespace

void addWorkloadCommand(CLI::App& app) {
    auto o = std::make_shared<WorkloadOptions>();
    CLI::App* workload = app.add_subcommand(
        "workload",
        "Tune a whole workload (many operators and shapes, one budget): tune, resume, show, list, from-onnx");
    workload->require_subcommand(1);

    CLI::App* tune = workload->add_subcommand("tune", "Tune the tasks of a workload file within one budget");
    tune->add_option("file", o->file, "Workload file (docs/workloads.md)")->required();
    tune->add_option("--budget", o->budget, "Trials over all tasks")->required();
    tune->add_option("--scheduler", o->scheduler, "How the budget is shared (see `schedulers`)")
        ->capture_default_str();
    tune->add_option("--scheduler-option", o->schedulerOptions, "Scheduler option name=value (repeatable)");
    tune->add_option("--strategy", o->strategy,
                     "Search strategy of every task (default: the file's, else default)");
    tune->add_option("--option", o->options, "Strategy option name=value (repeatable)");
    tune->add_option("--seed", o->seed, "Random seed of the scheduler and every task")->capture_default_str();
    tune->add_option("--space", o->space, "Space mode of every task: constrained or product");
    tune->add_option("--batch-size", o->batchSize, "Trials per round (one batch of the chosen task)");
    tune->add_option("--backend", o->backend, "Replaces the file's device: cpu, cuda or replay");
    tune->add_option("--constraint", o->constraints, "A constraint added to every task (repeatable)");
    tune->add_flag(
        "--cold", o->cold,
        "No task starts warm from the datasets and earlier sessions of its kernel measured elsewhere "
        "(tasks of one kernel still start from each other)");
    tune->add_flag("--transfer", o->transfer,
                   "Every task starts from the earlier sessions of its kernel in the database (tasks of one "
                   "kernel always start from each other)");
    addMeasurementOptions(*tune, o->measurement);
    tune->add_option("--db-wait", o->dbWait, "Seconds a write waits for another process's lock")
        ->capture_default_str();
    tune->add_option("--replay-delay-ms", o->replayDelayMs,
                     "Replay: wall time (ms) each replayed measurement takes, slept, as a real one would");
    addJsonFlag(*tune, *o);
    addMpiFlag(*tune, *o);
    tune->callback([o, tune] {
        InterruptSignals signals;
        MpiJob mpi(o->mpi);
        if (mpi.servedAsMeasuringRank())
            return;
        const WorkloadPlan plan = WorkloadFile::read(o->file, defaultsOf(*o, *tune));
        WorkloadRun::validate(plan); // before the database is created
        std::unique_ptr<RecordStore> store = openStore(*o, false);
        std::unique_ptr<WorkloadRun> run = WorkloadRun::create(plan, *store, hooks());
        runWorkload(*run, *store, o->json, mpi);
    });

    CLI::App* resume = workload->add_subcommand(
        "resume", "Continue an interrupted workload where it stopped, measuring nothing twice");
    resume->add_option("id", o->id, "Workload id (see `workload list`)")->required();
    resume->add_option("--db-wait", o->dbWait, "Seconds a write waits for another process's lock")
        ->capture_default_str();
    addJsonFlag(*resume, *o);
    addMpiFlag(*resume, *o);
    resume->callback([o] {
        InterruptSignals signals;
        MpiJob mpi(o->mpi);
        if (mpi.servedAsMeasuringRank())
            return;
        std::unique_ptr<RecordStore> store = openStore(*o, true);
        std::unique_ptr<WorkloadRun> run = WorkloadRun::resume(*store, o->id, hooks());
        runWorkload(*run, *store, o->json, mpi);
    });

    CLI::App* show = workload->add_subcommand(
        "show", "A workload's tasks: weight, trials, best time and share of the end-to-end latency");
    show->add_option("id", o->id, "Workload id (see `workload list`)")->required();
    addJsonFlag(*show, *o);
    show->callback([o] {
        const std::filesystem::path path = databasePath(*o);
        if (!std::filesystem::exists(path))
            throw Error(fmt::format("The records database {} does not exist.", path.string()));
        RecordStore store(path, DatabaseAccess::ReadOnly);
        printWorkload(store, o->id, o->json);
    });

    CLI::App* list = workload->add_subcommand("list", "The workloads of the records database");
    list->callback([o] { listWorkloads(*o); });
    o->db = shareOption(*workload, "--db", "Records database (default: $XDG_DATA_HOME/tunescope/records.db)");
    addWorkloadFromOnnx(*workload); // after --db is shared: it reads a model, not the records
}

} // namespace ts::cli
