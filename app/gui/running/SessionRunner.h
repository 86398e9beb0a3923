#pragma once

#include "running/SessionBridge.h"
#include "running/ThreadRunner.h"

#include "datasets/Dataset.h"
#include "session/SessionPlan.h"
#include "session/SessionStatus.h"
#include "trial/Trial.h"

#include <QObject>
#include <QString>
#include <memory>
#include <optional>

namespace ts::gui {

// Runs one session on a WorkerThread: core's PreparedSession builds it there from the plan (or from the
// stored plan of the session to resume), and the runner reports through a SessionBridge (trials taken in
// batches by the UI, a resumed session's finished trials first) and queued signals. Owned and driven by the
// UI thread; pause/resume/cancel only forward to the core session.
class SessionRunner : public ThreadRunner {
    Q_OBJECT
public:
    struct Request {
        // The plan of a new session; for a resume, the stored plan (what the views show; the worker reads it
        // again from the database with every check of a resume).
        SessionPlan plan;
        std::shared_ptr<const Dataset> dataset; // the plan's replay dataset, loaded already (may be null)
        QString databasePath;
        std::optional<std::int64_t> resumeSession; // the session to continue
    };

    explicit SessionRunner(QObject* parent = nullptr);
    ~SessionRunner() override;

    // Checks the plan (core's PreparedSession::validate) on the calling thread and throws ts::Error with one
    // sentence naming the bad input before any thread starts; then starts the worker, which builds the
    // session (compiling a kernel's reference).
    // Only one session runs at a time: returns false when one is still running.
    bool start(Request request);

    SessionBridge* bridge() const { return m_bridge.get(); }
    std::optional<std::int64_t> sessionId() const { return m_sessionId; }

signals:
    // What a warm start was built from (sources, devices, configs), or that the session starts cold.
    void warmStart(const QString& text);
    // Other remarks of core on the plan (a budget capped at the size of the space).
    void notice(const QString& text);
    // The restrictions the strategy learned from the failed configs, when the session ends (may be empty).
    void restrictionsLearned(const QStringList& restrictions);
    // status/reason are core's SessionStatus/StopReason names; error is empty unless the session failed.
    void finished(const QString& status, const QString& reason, const QString& error);

private:
    WorkerThread& worker() override { return m_worker; }
    const WorkerThread& worker() const override { return m_worker; }
    void runInWorker(const Request& request);
    void onEnded();

    std::unique_ptr<SessionBridge> m_bridge;
    std::optional<std::int64_t> m_sessionId;
    // Written by the worker, read when it has ended.
    QString m_status, m_reason, m_error;
    QStringList m_restrictions;
    WorkerThread m_worker{*this, "tuning-session"}; // last: joined first
};

} // namespace ts::gui
