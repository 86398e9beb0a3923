#include "CliSupport.h"
#include "Commands.h"
#include "InterruptSignals.h"
#include "Interrupted.h"
#include "KernelTarget.h"
#include "MpiJob.h"
#include "TrialLogPrinter.h"
#include "WorkloadPrinter.h"

#include "session/ModelQualityTracker.h"
#include "session/PreparedSession.h"
#include "session/SimulatedRanksPool.h"
#include "space/SpaceMode.h"
#include "store/RecordStore.h"
#include "strategies/StrategyRegistry.h"
#include "trial/BestSoFar.h"
#include "util/Error.h"
#include "workload/WorkloadFile.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>

namespace ts::cli {

namespace {

// `tune`'s flags: the session's plan, and what only the command line has (records database, output, resume).
struct TuneOptions {
    SessionPlan plan;
    std::string space = "constrained";
    std::vector<std::string> options; // --option name=value
    std::string backend;              // --backend: empty is cpu for a kernel, replay for a dataset
    std::string db;
    bool json = false;
    std::int64_t resume = 0; // session to continue with its stored plan
    bool logTrials = false;
    double dbWait = 60.0;           // --db-wait: seconds a write waits for another process's lock
    std::vector<std::string> sizes; // --size, repeatable: several sizes are tuned as one workload
    std::string scheduler = "gradient";
    bool mpi = false;              // --mpi: this process is a rank of an MPI job
    std::size_t simulateRanks = 0; // --simulate-ranks: replay as that many measuring ranks would
};

std::filesystem::path databasePath(const TuneOptions& o) {
    return o.db.empty() ? RecordStore::defaultPath() : std::filesystem::path(o.db);
}

// Prints progress on stderr and turns SIGINT / SIGTERM (InterruptSignals) into a cancel between batches.
class ProgressPrinter : public SessionObserver {
public:
    ProgressPrinter(TuningSession& session, const ModelQualityTracker& quality)
        : m_session(session), m_quality(quality) {}
    void progress(const SessionProgress& p) override {
        if (InterruptSignals::received() != 0)
            m_session.cancel();
        std::string budget = p.budget ? fmt::format("/{}", *p.budget) : "";
        std::string best = p.best ? fmt::format("{:.6g} ms", *p.best) : "none yet";
        std::string eta = p.etaS ? fmt::format(", eta {:.1f} s", *p.etaS) : "";
        std::string model;
        if (!m_quality.points().empty())
            model = fmt::format(", model spearman {:.2f} top-k {:.2f}", m_quality.points().back().spearman,
                                m_quality.points().back().topKRecall);
        m_line.update(fmt::format("[{}{}] best {}, {} invalid, {:.1f} s{}{}", p.evaluations, budget, best,
                                  p.invalid, p.elapsedS, eta, model),
                      p.budget && p.evaluations >= *p.budget);
    }
    void finished(SessionStatus, StopReason) override { m_line.finish(); }

private:
    TuningSession& m_session;
    const ModelQualityTracker& m_quality;
    ProgressLine m_line;
};

// The flags that choose what is tuned, as a plan (its own fields are checked by core).
SessionPlan planOf(const TuneOptions& o) {
    if (!(o.dbWait >= 0) || !std::isfinite(o.dbWait))
        throw Error(fmt::format("--db-wait {} is not a number of seconds of 0 or more.", o.dbWait));
    SessionPlan plan = o.plan;
    plan.kernel.size = o.sizes.empty() ? "" : o.sizes.front();
    if (plan.dataset.empty() && !plan.kernel.active())
        throw Error("tune needs --dataset FILE, --kernel NAME or --kernel-spec FILE (or --resume SESSION).");
    if (!plan.dataset.empty() && (plan.kernel.active() || !o.backend.empty()))
        throw Error("Give either --dataset (replay) or --kernel/--kernel-spec (real measurements), "
                    "not both.");
    plan.backend = !plan.dataset.empty() ? "replay" : o.backend.empty() ? "cpu" : o.backend;
    const std::optional<SpaceMode> mode = spaceModeFromString(o.space);
    if (!mode)
        throw Error(fmt::format("--space {} is not constrained or product.", o.space));
    plan.mode = *mode;
    plan.options = parseKeyValues(o.options, "--option");
    return plan;
}

void printResult(const TuneOptions& o, const PreparedSession& prepared, StopReason reason,
                 const ModelQualityTracker& quality) {
    const Dataset& dataset = *prepared.dataset();
    const TuningSession& session = prepared.session();
    const std::int64_t sessionId = *prepared.id();
    const std::string& strategy = prepared.plan().strategy;
    const std::vector<std::string> restrictions = prepared.strategy().learnedRestrictions();
    const Trial* best = session.best();
    auto optimum = dataset.optimum();
    std::vector<std::pair<std::int64_t, double>> convergence; // (evaluation, new best)
    const BestSoFar bestSoFar = BestSoFar::of(session.trials());
    for (const BestSoFar::Improvement& step : bestSoFar.improvements())
        convergence.emplace_back(session.trials()[step.position].number + 1, step.objective);
    if (o.json) {
        nlohmann::json out{{"session", sessionId},
                           {"strategy", strategy},
                           {"evaluations", session.trials().size()},
                           {"stop_reason", toString(reason)}};
        if (best) {
            out["best"] = {{"config", dataset.space.key(best->index)},
                           {"objective_ms", best->measurement.objective},
                           {"evaluation", best->number + 1}};
            if (optimum)
                out["best"]["fraction_of_optimum"] = *optimum / best->measurement.objective;
        }
        nlohmann::json curve = nlohmann::json::array();
        for (auto [evaluation, value] : convergence)
            curve.push_back({{"evaluation", evaluation}, {"best_ms", value}});
        out["convergence"] = curve;
        nlohmann::json model = nlohmann::json::array();
        for (const auto& point : quality.points())
            model.push_back({{"evaluations", point.evaluations},
                             {"predicted_trials", point.predicted},
                             {"spearman", point.spearman},
                             {"top_k_recall", point.topKRecall}});
        out["model_quality"] = model;
        out["learned_restrictions"] = restrictions;
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("session {} ({}, {}): {} evaluations, stopped: {}\n", sessionId, strategy,
               toString(prepared.plan().mode), session.trials().size(), toString(reason));
    printRestrictions(restrictions);
    if (!best) {
        fmt::print("no valid config found\n");
        return;
    }
    fmt::print("best {:.6g} ms at evaluation {}: {}\n", best->measurement.objective, best->number + 1,
               describeConfig(dataset.space, best->index));
    if (optimum)
        fmt::print("fraction of the dataset's optimum ({:.6g} ms): {:.4f}\n", *optimum,
                   *optimum / best->measurement.objective);
    if (!quality.points().empty()) {
        fmt::print("cost model on configs it had not seen (evaluations: spearman / top-k recall):");
        for (const auto& point : quality.points())
            fmt::print(" {}:{:.2f}/{:.2f}", point.evaluations, point.spearman, point.topKRecall);
        fmt::print("\n");
    }
    fmt::print("convergence (evaluation: best ms):");
    for (auto [evaluation, value] : convergence)
        fmt::print(" {}:{:.5g}", evaluation, value);
    fmt::print("\n");
}

// A write that meets another process's lock waits up to --db-wait, saying so once per wait on stderr.
void waitForLocks(RecordStore& store, const TuneOptions& o) {
    store.setBusyTimeout(std::chrono::milliseconds(std::llround(o.dbWait * 1000.0)));
    store.setLockWaitNotice([path = store.path().string(), wait = o.dbWait] {
        fmt::print(stderr,
                   "Waiting for another process to release its lock on the records database {} (up to {:g} "
                   "s, see --db-wait).\n",
                   path, wait);
        std::fflush(stderr);
    });
}

// A signal before anything was written ends the command there.
void stopIfInterruptedBeforeStart() {
    if (const int signal = InterruptSignals::received())
        throw Interrupted(signal,
                          fmt::format("tune was stopped by {} before its session started; nothing was "
                                      "recorded.",
                                      InterruptSignals::name(signal)));
}

// After the result of a session a signal cancelled is printed: the sentence main ends with.
void reportIfInterrupted(StopReason reason, const RecordStore& store, std::int64_t sessionId,
                         std::size_t evaluations) {
    const int signal = InterruptSignals::received();
    if (signal == 0 || reason != StopReason::Cancelled)
        return;
    std::fflush(stdout);
    throw Interrupted(signal, fmt::format("Session {} was interrupted by {} after {} evaluations; "
                                          "`tunescope-cli tune --resume {} --db {}` continues it.",
                                          sessionId, InterruptSignals::name(signal), evaluations, sessionId,
                                          store.path().string()));
}

// Says on stderr which flags a resume does not take: it continues with the session's stored plan.
void sayIgnoredOnResume(const CLI::App& cmd) {
    std::string ignored;
    for (const CLI::Option* option : cmd.get_options()) {
        const std::string name = option->get_name();
        if (option->count() == 0 || name == "--resume" || name == "--time-limit" || name == "--db" ||
            name == "--json" || name == "--log-trials" || name == "--db-wait" || name == "--help" ||
            name == "--mpi" || name == "--simulate-ranks")
            continue;
        ignored += (ignored.empty() ? "" : ", ") + name;
    }
    if (!ignored.empty())
        fmt::print(stderr, "--resume continues the session with its stored plan, so {} {} not used.\n",
                   ignored, ignored.find(',') == std::string::npos ? "is" : "are");
}

// tune --kernel K --size A --size B ...: the sizes as the tasks of one workload sharing the budget, as
// `workload tune` runs a workload file of those tasks.
void runSizesAsWorkload(const TuneOptions& o, MpiJob& mpi) {
    if (!o.plan.dataset.empty())
        throw Error("--size is given more than once, which tunes several sizes of a kernel; a replay dataset "
                    "has one size.");
    WorkloadPlan workload = WorkloadFile::ofSizes(planOf(o), o.sizes);
    workload.scheduler = o.scheduler;
    WorkloadRun::validate(workload);
    RecordStore store(databasePath(o));
    waitForLocks(store, o);
    WorkloadRun::Hooks hooks;
    hooks.notice = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    std::unique_ptr<WorkloadRun> run = WorkloadRun::create(workload, store, hooks);
    runWorkload(*run, store, o.json, mpi);
}

// tune and tune --resume: the plan made into a session by core, run with the CLI's observers (progress and
// Ctrl-C, --log-trials, the model's quality) and its result printed.
void runTune(const TuneOptions& o, const CLI::App& cmd) {
    if (o.simulateRanks > 0 && o.mpi)
        throw Error(
            "--simulate-ranks stands in for the measuring ranks of an MPI job, so it does not go with "
            "--mpi.");
    if (o.simulateRanks > 0 && o.sizes.size() > 1)
        throw Error("--simulate-ranks replays one dataset; it does not go with several --size.");
    MpiJob mpi(o.mpi);
    if (mpi.servedAsMeasuringRank())
        return;
    if (o.sizes.size() > 1 && o.resume == 0)
        return runSizesAsWorkload(o, mpi);
    PreparedSession::Hooks hooks;
    hooks.warmStart = hooks.notice = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    std::unique_ptr<RecordStore> store;
    std::unique_ptr<PreparedSession> prepared;
    if (o.resume > 0) {
        sayIgnoredOnResume(cmd);
        const std::filesystem::path db = databasePath(o);
        if (!std::filesystem::exists(db))
            throw Error(
                fmt::format("The records database {} does not exist, so session {} cannot be resumed.",
                            db.string(), o.resume));
        store = std::make_unique<RecordStore>(db);
        waitForLocks(*store, o);
        std::optional<double> timeLimit;
        if (cmd.get_option("--time-limit")->count() > 0)
            timeLimit = o.plan.timeLimitS;
        prepared = PreparedSession::resume(*store, o.resume, timeLimit, hooks);
    } else {
        const SessionPlan plan = planOf(o);
        PreparedSession::validate(plan); // before the database is created
        store = std::make_unique<RecordStore>(databasePath(o));
        waitForLocks(*store, o);
        prepared = PreparedSession::create(plan, *store, hooks);
    }
    TuningSession& session = prepared->session();
    ModelQualityTracker quality;
    ProgressPrinter printer(session, quality);
    TrialLogPrinter trialLog;
    if (o.logTrials)
        session.addObserver(&trialLog); // after the records writer (open): a logged trial is committed
    session.addObserver(&quality);
    session.addObserver(&printer);
    MeasurePool* pool = mpi.pool(*prepared); // before open(): a rank that cannot measure records nothing
    std::unique_ptr<SimulatedRanksPool> simulated;
    if (o.simulateRanks > 0) {
        simulated =
            std::make_unique<SimulatedRanksPool>(prepared->plan(), prepared->space(), o.simulateRanks);
        pool = simulated.get();
    }
    stopIfInterruptedBeforeStart();
    const std::int64_t sessionId = prepared->open();
    if (InterruptSignals::received() != 0)
        session.cancel(); // a signal while the session was being set up: end it before it measures
    const StopReason reason = pool ? prepared->run(*pool) : prepared->run();
    if (const KernelSessionTarget* kernel = prepared->kernelTarget())
        KernelTarget(*kernel).printResult(session, sessionId, prepared->plan().strategy, toString(reason),
                                          prepared->strategy().learnedRestrictions(), o.json);
    else
        printResult(o, *prepared, reason, quality);
    if (const std::string lost = mpi.lostRanks(); !lost.empty())
        throw Error(
            fmt::format("{}: session {} stopped after {} evaluations, every one recorded; `tunescope-cli "
                        "tune --resume {} --db {}` continues it, with or without --mpi.",
                        lost, sessionId, session.trials().size(), sessionId, store->path().string()));
    reportIfInterrupted(reason, *store, sessionId, session.trials().size());
}

} // namespace

void addTuneCommand(CLI::App& app) {
    auto o = std::make_shared<TuneOptions>();
    SessionPlan& plan = o->plan;
    CLI::App* cmd = app.add_subcommand("tune", "Tune a kernel: run a search strategy and record every trial");
    cmd->add_option("--dataset", plan.dataset, "Replay dataset to tune on (Kernel Tuner cache, T4, KTT)");
    cmd->add_option("--resume", o->resume,
                    "Continue an interrupted session of the records database with its own plan, without "
                    "measuring its finished trials again (a new --time-limit applies to this run)");
    cmd->add_flag("--log-trials", o->logTrials, "Print one line per trial on stderr once it is committed");
    addKernelOptions(*cmd, plan.kernel, o->sizes, o->backend);
    cmd->add_option("--scheduler", o->scheduler,
                    "With several --size: how the budget is shared among them (see `schedulers`)")
        ->capture_default_str();
    plan.strategy = StrategyRegistry::kDefaultAlias;
    cmd->add_option("--strategy", plan.strategy, "Search strategy (see `strategies`)")->capture_default_str();
    cmd->add_option("--option", o->options, "Strategy option name=value (repeatable)");
    cmd->add_option("--constraint", plan.constraints,
                    "Restrict the space: a Python-like expression (repeatable)");
    cmd->add_option("--budget", plan.budget, "Unique configs to evaluate")->capture_default_str();
    cmd->add_option("--seed", plan.seed, "Random seed")->capture_default_str();
    cmd->add_option("--space", o->space, "Space mode: constrained or product")->capture_default_str();
    cmd->add_option("--db", o->db, "Records database (default: $XDG_DATA_HOME/tunescope/records.db)");
    cmd->add_option("--batch-size", plan.batchSize, "Most configs proposed at once")->capture_default_str();
    cmd->add_option("--time-limit", plan.timeLimitS,
                    "Stop after this many seconds of this run (a resume without it gets the stored limit)");
    cmd->add_option("--patience", plan.patience, "Stop after this many evaluations without improvement");
    cmd->add_option("--target", plan.targetMs, "Stop once the best time (ms) is at or below this");
    cmd->add_flag("--stochastic", plan.stochastic, "Replay draws one recorded sample instead of the mean");
    cmd->add_flag("--json", o->json, "Machine-readable result on stdout");
    cmd->add_flag(
        "--mpi", o->mpi,
        "Run as one rank of an MPI job (mpirun -np N tunescope-cli tune ... --mpi): rank 0 runs the "
        "session and records it, every other rank measures (docs/cluster.md)");
    cmd->add_option(
           "--simulate-ranks", o->simulateRanks,
           "Replay as this many measuring ranks of an MPI job would measure, each replayed measurement "
           "taking --replay-delay-ms on a simulated clock instead of being slept: the strategy sees "
           "the results in the order, and with the configs in flight, of such a job")
        ->check(CLI::Range(1, 4096));
    cmd->add_option("--replay-delay-ms", plan.replayDelayMs,
                    "Replay: wall time (ms) each replayed measurement takes, slept, as a real one would");
    cmd->add_flag("--cold", plan.cold,
                  "Start from nothing: without it, xgb starts warm from what Tunescope knows of the kernel "
                  "(bundled and added datasets of it measured elsewhere, earlier sessions of it on other "
                  "devices or sizes; README, Warm starts)");
    cmd->add_option("--prior", plan.priors,
                    "Replay dataset of the same kernel measured elsewhere; xgb starts from it, with --cold "
                    "too (repeatable)");
    cmd->add_flag("--transfer", plan.transfer,
                  "xgb starts from every earlier session of the same kernel in the database, with --cold "
                  "too");
    cmd->add_option("--db-wait", o->dbWait,
                    "Seconds a write to the records database waits for another process's lock before the "
                    "session fails")
        ->capture_default_str();
    cmd->callback([o, cmd] {
        InterruptSignals signals;
        runTune(*o, *cmd);
    });
}

} // namespace ts::cli
