#pragma once

#include "SessionBridge.h"
#include "TaskSpec.h"

#include "records/Dataset.h"
#include "session/SessionStatus.h"
#include "trial/Trial.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

class QThread;

namespace ts {
class TuningSession;
}

namespace ts::gui {

// Runs one TuningSession on a worker thread: builds the backend, strategy, session, records writer and
// quality tracker there, and reports through a SessionBridge (trials taken in batches by the UI) and queued
// signals. Owned and driven by the UI thread; pause/resume/cancel only forward to the core session.
class SessionRunner : public QObject {
    Q_OBJECT
public:
    struct Request {
        std::shared_ptr<const Dataset> dataset; // replay space and measurements
        TaskSpec task;
        QString databasePath;
        // Resuming: the session to continue in the database and its trials measured so far. A real kernel's
        // space is built on the worker thread, so there its trials are read back there (core's
        // SessionResume) and `preload` stays empty.
        std::optional<std::int64_t> resumeSession;
        std::vector<Trial> preload;
    };

    explicit SessionRunner(QObject* parent = nullptr);
    ~SessionRunner() override;

    // Checks the task (strategy, options, stop conditions; for a real kernel its spec, size and measurement
    // options) on the calling thread and throws ts::Error with one sentence naming the bad input before any
    // thread starts; then starts the worker, which builds the kernel's backend (compiling its reference).
    // Only one session runs at a time: returns false when one is still running.
    bool start(Request request);

    void pause();
    void resume();
    void cancel();
    bool isRunning() const { return m_running; }
    bool isPaused() const { return m_paused; }

    SessionBridge* bridge() const { return m_bridge.get(); }
    std::optional<std::int64_t> sessionId() const { return m_sessionId; }

    // Blocks until the worker has ended (used on shutdown).
    void wait();

signals:
    void started(qint64 sessionId);
    void pausedChanged(bool paused);
    // What a warm start was built from, or that there was nothing to transfer (only when one was asked for).
    void warmStart(const QString& text);
    // The restrictions the strategy learned from the failed configs, when the session ends (may be empty).
    void restrictionsLearned(const QStringList& restrictions);
    // status/reason are core's SessionStatus/StopReason names; error is empty unless the session failed.
    void finished(const QString& status, const QString& reason, const QString& error);

private:
    void runInWorker(const Request& request);
    void onThreadFinished();

    std::unique_ptr<SessionBridge> m_bridge;
    std::unique_ptr<ModelQualityTracker> m_quality;
    QThread* m_thread = nullptr;
    bool m_running = false;
    bool m_paused = false;
    std::optional<std::int64_t> m_sessionId;

    // Shared with the worker thread.
    std::mutex m_mutex;
    TuningSession* m_session = nullptr; // valid while the worker runs it
    bool m_cancelRequested = false;
    bool m_pauseRequested = false;
    QString m_status, m_reason, m_error;
    QStringList m_restrictions;
};

} // namespace ts::gui
