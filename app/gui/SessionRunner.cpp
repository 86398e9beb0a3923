#include "SessionRunner.h"

#include "records/RecordStore.h"
#include "session/PreparedSession.h"
#include "session/TuningSession.h"

#include <QThread>
#include <optional>

namespace ts::gui {

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
    PreparedSession::validate(request.plan);
    m_bridge = std::make_unique<SessionBridge>();
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
    // Core's lines for the user reach the UI thread as queued signals.
    auto toUi = [this](void (SessionRunner::*signal)(const QString&)) {
        return [this, signal](const std::string& text) {
            QMetaObject::invokeMethod(
                this, [this, signal, line = QString::fromStdString(text)] { emit(this->*signal)(line); });
        };
    };
    PreparedSession::Hooks hooks{toUi(&SessionRunner::warmStart), toUi(&SessionRunner::notice),
                                 request.dataset};
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
        {
            std::lock_guard lock(m_mutex);
            m_session = &session;
            if (m_cancelRequested)
                session.cancel();
            if (m_pauseRequested)
                session.pause();
        }
        const StopReason reason = prepared->run();
        QStringList restrictions;
        for (const std::string& rule : prepared->strategy().learnedRestrictions())
            restrictions << QString::fromStdString(rule);
        std::lock_guard lock(m_mutex);
        m_session = nullptr;
        m_restrictions = restrictions;
        m_status =
            toString(reason == StopReason::Cancelled ? SessionStatus::Cancelled : SessionStatus::Completed);
        m_reason = toString(reason);
    } catch (const std::exception& e) {
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
