#pragma once

#include "running/ThreadRunner.h"

#include "workload/WorkloadPlan.h"
#include "workload/WorkloadProgress.h"

#include <QObject>
#include <QString>
#include <optional>
#include <vector>

namespace ts::gui {

// Where a workload stands after a round, as the Workload view shows it: core's progress and each task's
// best time so far (ms; +inf before its first correct trial).
struct WorkloadUpdate {
    WorkloadProgress progress;
    std::vector<double> bestPerTask;
};

// Runs one workload on a WorkerThread: core's WorkloadRun is created there with its own
// RecordStore connection (a new workload record), and what its observer hears reaches the UI thread as queued
// signals. Owned and driven by the UI thread; pause/resume/cancel only forward to the core run (they take
// effect between rounds).
class WorkloadRunner : public ThreadRunner {
    Q_OBJECT
public:
    struct Request {
        WorkloadPlan plan;
        QString databasePath;
    };

    explicit WorkloadRunner(QObject* parent = nullptr);
    ~WorkloadRunner() override;

    // Checks the plan (core's WorkloadRun::validate) on the calling thread and throws ts::Error with one
    // sentence naming the bad input before any thread starts. Returns false when a workload is still running.
    bool start(Request request);

    std::optional<std::int64_t> workloadId() const { return m_workloadId; }

signals:
    void notice(const QString& text);
    // A task's session was recorded (or reopened).
    void taskOpened(int task, qint64 sessionId);
    void taskFailed(int task, const QString& error);
    void roundFinished(const ts::gui::WorkloadUpdate& update);
    // stop is core's WorkloadStop name ("budget", "done", "cancelled"), or "failed" with the error's
    // sentence.
    void finished(const QString& stop, const QString& error);

private:
    WorkerThread& worker() override { return m_worker; }
    const WorkerThread& worker() const override { return m_worker; }
    class Bridge;
    void runInWorker(const Request& request);

    std::optional<std::int64_t> m_workloadId;
    // Written by the worker, read when it has ended.
    QString m_stop, m_error;
    WorkerThread m_worker{*this, "workload"}; // last: joined first
};

} // namespace ts::gui

Q_DECLARE_METATYPE(ts::gui::WorkloadUpdate)
