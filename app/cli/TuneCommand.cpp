#include "CliSupport.h"
#include "Commands.h"
#include "InterruptSignals.h"
#include "Interrupted.h"
#include "KernelTarget.h"
#include "ResumeSupport.h"
#include "records/SessionResume.h"

#include "analysis/TransferSources.h"
#include "backends/ReplayBackend.h"
#include "records/DatasetRestriction.h"
#include "records/RecordPriors.h"
#include "records/RecordStore.h"
#include "records/SessionLock.h"
#include "session/ModelQualityTracker.h"
#include "session/RecordWriter.h"
#include "session/TuningSession.h"
#include "strategies/StrategyRegistry.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>

namespace ts::cli {

namespace {

struct TuneOptions {
    std::string dataset;
    std::string strategy = StrategyRegistry::kDefaultAlias;
    std::vector<std::string> options;
    std::vector<std::string> constraints;
    std::int64_t budget = 100;
    std::uint64_t seed = 0;
    std::string space = "constrained";
    std::string db;
    std::size_t batchSize = 8;
    double timeLimit = 0.0;
    std::int64_t patience = 0;
    double target = 0.0;
    bool stochastic = false;
    bool json = false;
    std::int64_t resume = 0; // session to continue; its stored settings replace the options above
    bool logTrials = false;
    std::vector<std::string> priors; // --prior: replay datasets of the same kernel that warm-start xgb
    bool transfer = false;           // --transfer: earlier sessions of the kernel in the database do too
    KernelTuneOptions kernel;        // --kernel / --kernel-spec: measure for real instead of replaying
    double dbWait = 60.0;            // --db-wait: seconds a write waits for another process's lock
};

std::filesystem::path databasePath(const TuneOptions& o) {
    return o.db.empty() ? RecordStore::defaultPath() : std::filesystem::path(o.db);
}

// The settings of a session beyond SessionRecord's columns, for --resume.
std::string resumeSettings(const TuneOptions& o) {
    return nlohmann::json{{"constraints", o.constraints}, {"batch_size", o.batchSize},
                          {"time_limit", o.timeLimit},    {"patience", o.patience},
                          {"target", o.target},           {"stochastic", o.stochastic},
                          {"priors", o.priors},           {"transfer", o.transfer}}
        .dump();
}

// The options of the stored session `o.resume`, keeping only the output flags and the database of `o`.
TuneOptions resumedOptions(const TuneOptions& o) {
    const SessionRecord record = sessionToResume(databasePath(o), o.resume);
    if (record.backend != "replay" && record.backend != "cpu" && record.backend != "cuda")
        throw Error(fmt::format("Session {} ran on the {} backend; this build resumes replay, cpu and cuda "
                                "sessions only.",
                                o.resume, record.backend));
    TuneOptions resumed = o;
    resumed.dataset = record.dataset;
    resumed.strategy = record.strategy;
    resumed.options.clear();
    const nlohmann::json options =
        parseBoundedJson(record.options, fmt::format("the options of session {}", record.id));
    if (options.is_object())
        for (const auto& [name, value] : options.items())
            resumed.options.push_back(name + "=" +
                                      (value.is_string() ? value.get<std::string>() : value.dump()));
    resumed.seed = record.seed;
    resumed.space = record.spaceMode;
    resumed.budget = record.budget;
    const nlohmann::json settings =
        parseBoundedJson(record.settings, fmt::format("the settings of session {}", record.id));
    if (settings.is_object()) {
        resumed.constraints = settings.value("constraints", std::vector<std::string>{});
        resumed.batchSize = settings.value("batch_size", o.batchSize);
        resumed.timeLimit = settings.value("time_limit", 0.0);
        resumed.patience = settings.value("patience", std::int64_t{0});
        resumed.target = settings.value("target", 0.0);
        resumed.stochastic = settings.value("stochastic", false);
        resumed.priors = settings.value("priors", std::vector<std::string>{});
        resumed.transfer = settings.value("transfer", false);
        if (record.backend == "cpu" || record.backend == "cuda")
            resumed.kernel = kernelOptionsFromSettings(settings.value("kernel", nlohmann::json::object()));
    }
    return resumed;
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

void checkOptions(const TuneOptions& o) {
    if (o.budget <= 0)
        throw Error(fmt::format("--budget {} is not a positive number of evaluations.", o.budget));
    if (o.batchSize == 0)
        throw Error("--batch-size 0 is not a positive batch size.");
    if (o.timeLimit < 0)
        throw Error(fmt::format("--time-limit {} is negative.", o.timeLimit));
    if (o.patience < 0)
        throw Error(fmt::format("--patience {} is negative.", o.patience));
    if (!(o.dbWait >= 0) || !std::isfinite(o.dbWait))
        throw Error(fmt::format("--db-wait {} is not a number of seconds of 0 or more.", o.dbWait));
    if (o.dataset.empty() && !o.kernel.active())
        throw Error("tune needs --dataset FILE, --kernel NAME or --kernel-spec FILE (or --resume SESSION).");
    if (!o.dataset.empty() && o.kernel.active())
        throw Error("Give either --dataset (replay) or --kernel/--kernel-spec (real measurements), "
                    "not both.");
}

// The transfer prior asked for by --prior and --transfer (null when neither was given), with a line on
// stderr saying what it was built from. `excluded` is the session being resumed, which is no prior of itself.
std::shared_ptr<const TransferPrior> transferPrior(const TuneOptions& o, const Strategy& strategy,
                                                   const std::string& kernel, const SearchSpace& space,
                                                   const RecordStore& store, std::int64_t excluded) {
    if (o.priors.empty() && !o.transfer)
        return nullptr;
    if (!strategy.usesPrior())
        throw Error(
            fmt::format("--prior and --transfer warm-start the xgb strategy (the default); {} does not "
                        "use a prior.",
                        strategy.name()));
    std::vector<std::shared_ptr<const Dataset>> datasets;
    std::vector<PriorSource> sources;
    for (const std::string& path : o.priors) {
        datasets.push_back(loadDataset(path));
        if (!TransferPrior::compatible(space, datasets.back()->space))
            throw Error(
                fmt::format("--prior {}: its parameters are not those of the space being tuned, so it "
                            "cannot warm-start it.",
                            path));
        sources.push_back(priorSource(*datasets.back()));
    }
    if (o.transfer) {
        std::vector<PriorSource> records = recordPriorSources(store, kernel, space, excluded);
        if (records.empty())
            fmt::print(stderr, "--transfer: no earlier session of {} with these parameters in {}.\n", kernel,
                       store.path().string());
        sources.insert(sources.end(), records.begin(), records.end());
    }
    if (sources.empty()) {
        fmt::print(stderr, "Starting cold: there is nothing to transfer.\n");
        return nullptr;
    }
    auto started = std::chrono::steady_clock::now();
    auto prior = std::make_shared<const TransferPrior>(space, sources);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::string labels;
    for (const std::string& label : prior->sources())
        labels += (labels.empty() ? "" : "; ") + label;
    fmt::print(stderr, "Warm start from {} measured configs of {} source(s): {} (prior built in {:.1f} s).\n",
               prior->rows(), prior->sources().size(), labels, seconds);
    return prior;
}

SessionRecord describeSession(const TuneOptions& o, const Dataset& dataset, const std::string& strategy,
                              const StrategyOptions& options) {
    SessionRecord record;
    record.kernel = dataset.kernelName;
    record.problem = dataset.problemSize;
    record.device = dataset.deviceName;
    record.backend = "replay";
    record.dataset = std::filesystem::absolute(o.dataset).string();
    record.strategy = strategy;
    record.options = options.toJson();
    record.seed = o.seed;
    record.spaceMode = o.space;
    record.budget = o.budget;
    nlohmann::json names = nlohmann::json::array();
    for (const Parameter& p : dataset.space.parameters())
        names.push_back(p.name);
    record.parameters = names.dump();
    record.toolVersion = TUNESCOPE_VERSION;
    record.settings = resumeSettings(o);
    bindReplaySession(record, o.dataset);
    record.startedAt =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return record;
}

void printResult(const TuneOptions& o, const Dataset& dataset, const TuningSession& session,
                 std::int64_t sessionId, StopReason reason, const std::string& strategy,
                 const ModelQualityTracker& quality, const std::vector<std::string>& restrictions) {
    const Trial* best = session.best();
    auto optimum = dataset.optimum();
    std::vector<std::pair<std::int64_t, double>> convergence; // (evaluation, new best)
    double current = std::numeric_limits<double>::infinity();
    for (const Trial& t : session.trials())
        if (t.measurement.status == MeasureStatus::Ok && t.measurement.objective < current) {
            current = t.measurement.objective;
            convergence.emplace_back(t.number + 1, current);
        }
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
    fmt::print("session {} ({}, {}): {} evaluations, stopped: {}\n", sessionId, strategy, o.space,
               session.trials().size(), toString(reason));
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

// Says once, on stderr, when the session capped the budget at the size of the space.
void sayBudgetCap(const TuningSession& session, const TuneOptions& o) {
    if (auto asked = session.budgetCappedFrom())
        fmt::print(stderr, "--budget {} is more than the {} configs of the {} space, so the budget is {}.\n",
                   *asked, *session.budget(), o.space, *session.budget());
}

SessionSettings sessionSettings(const TuneOptions& o, SpaceMode mode) {
    SessionSettings settings;
    settings.mode = mode;
    settings.batchSize = o.batchSize;
    settings.stop.maxEvaluations = o.budget;
    if (o.timeLimit > 0)
        settings.stop.maxSeconds = o.timeLimit;
    if (o.patience > 0)
        settings.stop.patience = o.patience;
    if (o.target > 0)
        settings.stop.targetObjective = o.target;
    return settings;
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

// Runs the session with the CLI's observers (records, progress, Ctrl-C) and closes the session record as
// failed when something throws.
StopReason runObserved(const TuneOptions& o, TuningSession& session, RecordStore& store,
                       std::int64_t sessionId, const std::vector<std::string>& names,
                       ModelQualityTracker& quality) {
    RecordWriter writer(store, sessionId, names);
    ProgressPrinter printer(session, quality);
    TrialLogPrinter trialLog;
    session.addObserver(&writer);
    if (o.logTrials)
        session.addObserver(&trialLog); // after the writer: a logged trial is already committed
    session.addObserver(&quality);
    session.addObserver(&printer);
    if (InterruptSignals::received() != 0)
        session.cancel(); // a signal while the session was being set up: end it before it measures
    try {
        return session.run();
    } catch (...) {
        try {
            store.endSession(sessionId, toString(SessionStatus::Failed));
        } catch (const std::exception&) {
            // The database itself failed; the original error says why.
        }
        throw;
    }
}

// tune --kernel / --kernel-spec: builds and measures configs for real (CpuBackend or CudaBackend).
void runKernelTune(const TuneOptions& o) {
    SpaceMode mode = parseSpaceMode(o.space);
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    std::string strategyName = registry.entry(o.strategy).name;
    StrategyOptions strategyOptions = registry.options(o.strategy, parseKeyValues(o.options, "--option"));
    KernelTuneOptions kernelOptions = o.kernel;
    kernelOptions.seed = o.seed;
    KernelTarget target(kernelOptions, o.constraints);
    RecordStore store(databasePath(o));
    waitForLocks(store, o);

    auto strategy = registry.create(strategyName);
    strategy->reset({&target.space(), mode, o.seed, strategyOptions,
                     transferPrior(o, *strategy, target.spec().name, target.space(), store, o.resume)});
    TuningSession session(target.space(), target.backend(), *strategy, sessionSettings(o, mode));
    sayBudgetCap(session, o);
    std::int64_t sessionId = o.resume;
    std::optional<SessionLock> running; // refuses a second process resuming this session meanwhile
    stopIfInterruptedBeforeStart();
    if (o.resume > 0) {
        const SessionRecord stored = *store.session(o.resume);
        SessionResume::checkSameDevice(stored, target.backend().deviceFingerprint());
        running.emplace(store.path(), o.resume);
        session.preload(reopenForResume(store, stored, target.space(), target.source()));
    } else {
        SessionRecord record;
        target.describe(record);
        record.strategy = strategyName;
        record.options = strategyOptions.toJson();
        record.seed = o.seed;
        record.spaceMode = o.space;
        record.budget = *session.budget();
        nlohmann::json names = nlohmann::json::array();
        for (const Parameter& p : target.space().parameters())
            names.push_back(p.name);
        record.parameters = names.dump();
        record.toolVersion = TUNESCOPE_VERSION;
        record.startedAt =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        nlohmann::json settings = nlohmann::json::parse(resumeSettings(o));
        settings["kernel"] = kernelSettings(o.kernel);
        settings["default_config"] = target.defaultConfig();
        record.settings = settings.dump();
        sessionId = store.beginSession(record);
        running.emplace(store.path(), sessionId);
    }
    std::vector<std::string> names;
    for (const Parameter& p : target.space().parameters())
        names.push_back(p.name);
    ModelQualityTracker quality;
    StopReason reason = runObserved(o, session, store, sessionId, names, quality);
    target.printResult(session, sessionId, strategyName, toString(reason), strategy->learnedRestrictions(),
                       o.json);
    reportIfInterrupted(reason, store, sessionId, session.trials().size());
}

void runTune(const TuneOptions& o) {
    checkOptions(o);
    if (o.kernel.active()) {
        runKernelTune(o);
        return;
    }
    SpaceMode mode = parseSpaceMode(o.space);
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    std::string strategyName = registry.entry(o.strategy).name;
    StrategyOptions strategyOptions = registry.options(o.strategy, parseKeyValues(o.options, "--option"));
    auto dataset = std::make_shared<const Dataset>(restrictDataset(*loadDataset(o.dataset), o.constraints));
    RecordStore store(databasePath(o));
    waitForLocks(store, o);

    auto strategy = registry.create(strategyName);
    strategy->reset({&dataset->space, mode, o.seed, strategyOptions,
                     transferPrior(o, *strategy, dataset->kernelName, dataset->space, store, o.resume)});
    ReplayBackend backend(dataset, o.stochastic, o.seed);
    TuningSession session(dataset->space, backend, *strategy, sessionSettings(o, mode));
    sayBudgetCap(session, o);

    std::int64_t sessionId = o.resume;
    std::optional<SessionLock> running; // refuses a second process resuming this session meanwhile
    stopIfInterruptedBeforeStart();
    if (o.resume > 0) {
        running.emplace(store.path(), o.resume);
        session.preload(reopenForResume(store, *store.session(o.resume), dataset->space, o.dataset));
    } else {
        SessionRecord record = describeSession(o, *dataset, strategyName, strategyOptions);
        record.budget = *session.budget(); // capped at the space's size
        sessionId = store.beginSession(record);
        running.emplace(store.path(), sessionId);
    }
    std::vector<std::string> names;
    for (const Parameter& p : dataset->space.parameters())
        names.push_back(p.name);
    ModelQualityTracker quality;
    StopReason reason = runObserved(o, session, store, sessionId, names, quality);
    printResult(o, *dataset, session, sessionId, reason, strategyName, quality,
                strategy->learnedRestrictions());
    reportIfInterrupted(reason, store, sessionId, session.trials().size());
}

} // namespace

void addTuneCommand(CLI::App& app) {
    auto o = std::make_shared<TuneOptions>();
    CLI::App* cmd = app.add_subcommand("tune", "Tune a kernel: run a search strategy and record every trial");
    cmd->add_option("--dataset", o->dataset, "Replay dataset to tune on (Kernel Tuner cache, T4, KTT)");
    cmd->add_option("--resume", o->resume,
                    "Continue an interrupted session of the records database with its own settings, "
                    "without measuring its finished trials again");
    cmd->add_flag("--log-trials", o->logTrials, "Print one line per trial on stderr once it is committed");
    addKernelOptions(*cmd, o->kernel);
    cmd->add_option("--strategy", o->strategy, "Search strategy (see `strategies`)")->capture_default_str();
    cmd->add_option("--option", o->options, "Strategy option name=value (repeatable)");
    cmd->add_option("--constraint", o->constraints,
                    "Restrict the space: a Python-like expression (repeatable)");
    cmd->add_option("--budget", o->budget, "Unique configs to evaluate")->capture_default_str();
    cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
    cmd->add_option("--space", o->space, "Space mode: constrained or product")->capture_default_str();
    cmd->add_option("--db", o->db, "Records database (default: $XDG_DATA_HOME/tunescope/records.db)");
    cmd->add_option("--batch-size", o->batchSize, "Most configs proposed at once")->capture_default_str();
    cmd->add_option("--time-limit", o->timeLimit, "Stop after this many seconds");
    cmd->add_option("--patience", o->patience, "Stop after this many evaluations without improvement");
    cmd->add_option("--target", o->target, "Stop once the best time (ms) is at or below this");
    cmd->add_flag("--stochastic", o->stochastic, "Replay draws one recorded sample instead of the mean");
    cmd->add_flag("--json", o->json, "Machine-readable result on stdout");
    cmd->add_option("--prior", o->priors,
                    "Replay dataset of the same kernel measured elsewhere; xgb starts from it (repeatable)");
    cmd->add_flag("--transfer", o->transfer,
                  "xgb starts from the earlier sessions of the same kernel in the database (other devices, "
                  "sizes)");
    cmd->add_option("--db-wait", o->dbWait,
                    "Seconds a write to the records database waits for another process's lock before the "
                    "session fails")
        ->capture_default_str();
    cmd->callback([o] {
        InterruptSignals signals;
        runTune(o->resume > 0 ? resumedOptions(*o) : *o);
    });
}

} // namespace ts::cli
