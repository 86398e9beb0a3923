#include "running/SessionRunner.h"

#include "session/PreparedSession.h"
#include "session/TuningSession.h"
#include "store/RecordStore.h"

#include <optional>

namespace ts::gui {

SessionRunner::SessionRunner(QObject* parent) : ThreadRunner(parent) {}

SessionRunner::~SessionRunner() = default;

bool SessionRunner::start(Request request) {
    if (isRunning())
        return false;
    PreparedSession::validate(request.plan);
    m_bridge = std::make_unique<SessionBridge>();
    m_status.clear();
    m_reason.clear();
    m_error.clear();
    m_restrictions.clear();
    m_sessionId = request.resumeSession;
    return m_worker.start([this, request = std::move(request)] { runInWorker(request); },
                          [this] { onEnded(); });
}

void SessionRunner::runInWorker(const Request& request) {
    // Core's lines for the user reach the UI thread as queued signals.
    auto toUi = [this](void (SessionRunner::*signal)(const QString&)) {
        return [this, signal](const std::string& text) {
            QMetaObject::invokeMethod(
                this, [this, signal, line = QString::fromStdString(text)] { emit(this->*signal)(line); });
        };
    };
    PreparedSession::Hooks hooks;
    hooks.warmStart = toUi(&SessionRunner::warmStart);
    hooks.notice = toUi(&SessionRunner::notice);
    hooks.dataset = request.dataset;
    try {
        RecordStore store(request.databasePath.toStdString());
        std::unique_ptr<PreparedSession> prepared =
            request.resumeSession
                ? PreparedSession::resume(store, *request.resumeSession, std::nullopt, hooks)
                : PreparedSession::create(request.plan, store, hooks);
        TuningSession& session = prepared->session();
        session.addObserver(m_bridge.get());
        const std::int64_t id = prepared->open();
        for (const Trial& trial : session.trials()) // a resumed session's finished trials, for the views
            m_bridge->trialFinished(trial);
        QMetaObject::invokeMethod(this, [this, id] {
            m_sessionId = id;
            emit started(id);
        });
        m_worker.attach(session);
        const StopReason reason = prepared->run();
        m_worker.detach();
        for (const std::string& rule : prepared->strategy().learnedRestrictions())
            m_restrictions << QString::fromStdString(rule);
        m_status =
            toString(reason == StopReason::Cancelled ? SessionStatus::Cancelled : SessionStatus::Completed);
        m_reason = toString(reason);
    } catch (const std::exception& e) {
        m_worker.detach();
        m_status = toString(SessionStatus::Failed);
        m_reason = toString(StopReason::Error);
        m_error = QString::fromStdString(e.what());
    }
}

void SessionRunner::onEnded() {
    emit restrictionsLearned(m_restrictions);
    emit finished(m_status, m_reason, m_error);
}

} // namespace ts::gui
