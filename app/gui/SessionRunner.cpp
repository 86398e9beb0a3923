#include "SessionRunner.h"

#include "backends/ReplayBackend.h"
#include "records/RecordPriors.h"
#include "records/RecordStore.h"
#include "records/SessionLock.h"
#include "records/SessionResume.h"
#include "session/KernelSessionTarget.h"
#include "session/KernelTuneOptions.h"
#include "session/RecordWriter.h"
#include "session/TuningSession.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"

#include <QThread>
#include <chrono>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>

namespace ts::gui {

namespace {

// A real kernel's spec, size and measurement options, without building its space or backend.
void checkKernel(const TaskSpec& t) {
    if (t.kernel.backend != t.backend)
        throw Error(fmt::format("Backend \"{}\" does not match the kernel's backend \"{}\".", t.backend,
                                t.kernel.backend));
    checkKernelOptions(t.kernel);
    const KernelSpec spec = loadKernelSpec(t.kernel);
    if (!spec.variant(t.backend))
        throw Error(fmt::format("Kernel {} has no {} variant.", spec.name, t.backend));
    kernelProblemSize(spec, t.kernel);
}

void checkTask(const SessionRunner::Request& request) {
    const TaskSpec& t = request.task;
    if (t.measuresKernel())
        checkKernel(t);
    else if (!request.dataset)
        throw Error("No kernel is chosen: open a replay dataset (File > Open) first.");
    if (t.budget <= 0)
        throw Error(fmt::format("Budget {} is not a positive number of evaluations.", t.budget));
    if (t.batchSize == 0)
        throw Error("Batch size 0 is not a positive batch size.");
    if (t.timeLimitS < 0 || t.patience < 0 || t.targetMs < 0)
        throw Error("Stop conditions (time limit, patience, target) must not be negative.");
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    registry.options(t.strategy, t.options); // throws naming the strategy or the option
    if (t.transfer && !registry.create(registry.entry(t.strategy).name)->usesPrior())
        throw Error(fmt::format(
            "Warm start applies to the xgb strategy (the default); {} does not use a prior.", t.strategy));
}

// The settings beyond SessionRecord's columns, as `tune` stores them: the CLI and the window resume each
// other's sessions.
std::string resumeSettings(const TaskSpec& t) {
    nlohmann::json settings{{"constraints", t.constraints}, {"batch_size", t.batchSize},
                            {"time_limit", t.timeLimitS},   {"patience", t.patience},
                            {"target", t.targetMs},         {"stochastic", t.stochastic},
                            {"transfer", t.transfer}};
    if (t.measuresKernel())
        settings["kernel"] = kernelSettings(t.kernel);
    return settings.dump();
}

SessionRecord describe(const SessionRunner::Request& request, const KernelSessionTarget* target,
                       const SearchSpace& space, const std::string& strategy,
                       const StrategyOptions& options) {
    SessionRecord record;
    if (target) {
        target->describe(record);
    } else {
        const Dataset& dataset = *request.dataset;
        record.kernel = dataset.kernelName;
        record.problem = dataset.problemSize;
        record.device = dataset.deviceName;
        record.backend = request.task.backend;
        record.dataset = std::filesystem::absolute(dataset.path).string();
    }
    record.settings = resumeSettings(request.task);
    if (target) {
        nlohmann::json settings = nlohmann::json::parse(record.settings);
        settings["default_config"] = target->defaultConfig();
        record.settings = settings.dump();
    }
    record.strategy = strategy;
    record.options = options.toJson();
    record.seed = request.task.seed;
    record.spaceMode = toString(request.task.mode);
    record.budget = request.task.budget;
    nlohmann::json names = nlohmann::json::array();
    for (const Parameter& p : space.parameters())
        names.push_back(p.name);
    record.parameters = names.dump();
    record.toolVersion = TUNESCOPE_VERSION;
    record.startedAt =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return record;
}

// The finished trials of a kernel session to resume, located in the space built again (core's resume path,
// as `tune --resume`): refused when the kernel's source changed since.
std::vector<Trial> kernelTrialsToResume(const RecordStore& store, std::int64_t sessionId,
                                        const KernelSessionTarget& target) {
    const SessionRecord record = SessionResume::resumable(store, sessionId);
    SessionResume::checkSourceUnchanged(record, target.source());
    SessionResume::checkSameDevice(record, target.backend().deviceFingerprint());
    return SessionResume::finishedTrials(store, record, target.space());
}

SessionSettings settingsOf(const TaskSpec& t) {
    SessionSettings settings;
    settings.mode = t.mode;
    settings.batchSize = t.batchSize;
    settings.stop.maxEvaluations = t.budget;
    if (t.timeLimitS > 0)
        settings.stop.maxSeconds = t.timeLimitS;
    if (t.patience > 0)
        settings.stop.patience = t.patience;
    if (t.targetMs > 0)
        settings.stop.targetObjective = t.targetMs;
    return settings;
}

} // namespace

SessionRunner::SessionRunner(QObject* parent) : QObject(parent) {}

SessionRunner::~SessionRunner() {
    cancel();
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

bool SessionRunner::start(Request request) {
    if (m_running)
        return false;
    checkTask(request);
    m_quality = std::make_unique<ModelQualityTracker>();
    m_bridge = std::make_unique<SessionBridge>(m_quality.get());
    {
        std::lock_guard lock(m_mutex);
        m_session = nullptr;
        m_cancelRequested = false;
        m_pauseRequested = false;
        m_status.clear();
        m_reason.clear();
        m_error.clear();
        m_restrictions.clear();
    }
    m_sessionId = request.resumeSession;
    m_running = true;
    m_paused = false;
    m_thread = QThread::create([this, request = std::move(request)] { runInWorker(request); });
    m_thread->setObjectName("tuning-session");
    connect(m_thread, &QThread::finished, this, &SessionRunner::onThreadFinished);
    m_thread->start();
    return true;
}

void SessionRunner::runInWorker(const Request& request) {
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    std::optional<std::int64_t> sessionId;
    std::unique_ptr<RecordStore> store;
    try {
        const TaskSpec& t = request.task;
        std::string strategyName = registry.entry(t.strategy).name;
        StrategyOptions options = registry.options(t.strategy, t.options);
        store = std::make_unique<RecordStore>(request.databasePath.toStdString());
        std::unique_ptr<KernelSessionTarget> target;
        std::unique_ptr<ReplayBackend> replay;
        if (t.measuresKernel())
            target = std::make_unique<KernelSessionTarget>(t.kernel, t.constraints);
        else
            replay = std::make_unique<ReplayBackend>(request.dataset, t.stochastic, t.seed);
        const SearchSpace& space = target ? target->space() : request.dataset->space;
        Backend& backend = target ? target->backend() : *replay;
        auto strategy = registry.create(strategyName);
        std::shared_ptr<const TransferPrior> prior;
        if (t.transfer) {
            const std::string kernel = target ? target->spec().name : request.dataset->kernelName;
            prior = recordTransferPrior(*store, kernel, space, request.resumeSession.value_or(0));
            std::string text =
                fmt::format("No earlier session of {} in the records database: starting cold.", kernel);
            if (prior) {
                text = fmt::format("Warm start from {} measured configs of {} earlier session(s):",
                                   prior->rows(), prior->sources().size());
                for (const std::string& label : prior->sources())
                    text += " " + label + ";";
                text.back() = '.';
            }
            QMetaObject::invokeMethod(this,
                                      [this, note = QString::fromStdString(text)] { emit warmStart(note); });
        }
        strategy->reset({&space, t.mode, t.seed, options, prior});
        TuningSession session(space, backend, *strategy, settingsOf(t));
        std::optional<SessionLock> running; // refuses another process resuming this session meanwhile
        if (request.resumeSession) {
            running.emplace(request.databasePath.toStdString(), *request.resumeSession);
            session.preload(target ? kernelTrialsToResume(*store, *request.resumeSession, *target)
                                   : request.preload);
            sessionId = *request.resumeSession; // from here on a failure ends the record as failed
            store->reopenSession(*sessionId);
        } else {
            SessionRecord record = describe(request, target.get(), space, strategyName, options);
            record.budget = session.budget().value_or(record.budget); // capped at the space's size
            sessionId = store->beginSession(record);
            running.emplace(request.databasePath.toStdString(), *sessionId);
        }
        QMetaObject::invokeMethod(this, [this, id = *sessionId] {
            m_sessionId = id;
            emit started(id);
        });
        std::vector<std::string> names;
        for (const Parameter& p : space.parameters())
            names.push_back(p.name);
        RecordWriter writer(*store, *sessionId, names);
        session.addObserver(&writer);
        session.addObserver(m_quality.get());
        session.addObserver(m_bridge.get());
        {
            std::lock_guard lock(m_mutex);
            m_session = &session;
            if (m_cancelRequested)
                session.cancel();
            if (m_pauseRequested)
                session.pause();
        }
        StopReason reason = session.run();
        QStringList restrictions;
        for (const std::string& rule : strategy->learnedRestrictions())
            restrictions << QString::fromStdString(rule);
        std::lock_guard lock(m_mutex);
        m_session = nullptr;
        m_restrictions = restrictions;
        m_status =
            toString(reason == StopReason::Cancelled ? SessionStatus::Cancelled : SessionStatus::Completed);
        m_reason = toString(reason);
    } catch (const std::exception& e) {
        if (store && sessionId) {
            try {
                store->endSession(*sessionId, toString(SessionStatus::Failed));
            } catch (const std::exception&) {
                // The database itself failed; the original error says why.
            }
        }
        std::lock_guard lock(m_mutex);
        m_session = nullptr;
        m_status = toString(SessionStatus::Failed);
        m_reason = toString(StopReason::Error);
        m_error = QString::fromStdString(e.what());
    }
}

void SessionRunner::onThreadFinished() {
    m_thread->deleteLater();
    m_thread = nullptr;
    m_running = false;
    m_paused = false;
    QString status, reason, error;
    QStringList restrictions;
    {
        std::lock_guard lock(m_mutex);
        restrictions = m_restrictions;
        status = m_status;
        reason = m_reason;
        error = m_error;
    }
    emit restrictionsLearned(restrictions);
    emit finished(status, reason, error);
}

void SessionRunner::pause() {
    if (!m_running || m_paused)
        return;
    {
        std::lock_guard lock(m_mutex);
        m_pauseRequested = true;
        if (m_session)
            m_session->pause();
    }
    m_paused = true;
    emit pausedChanged(true);
}

void SessionRunner::resume() {
    if (!m_running || !m_paused)
        return;
    {
        std::lock_guard lock(m_mutex);
        m_pauseRequested = false;
        if (m_session)
            m_session->resume();
    }
    m_paused = false;
    emit pausedChanged(false);
}

void SessionRunner::cancel() {
    std::lock_guard lock(m_mutex);
    m_cancelRequested = true;
    if (m_session)
        m_session->cancel();
}

void SessionRunner::wait() {
    if (m_thread)
        m_thread->wait();
}

} // namespace ts::gui
