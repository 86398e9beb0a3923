#pragma once

#include "running/WorkerThread.h"

#include <QObject>

namespace ts::gui {

// What the window's runners (SessionRunner, WorkloadRunner) have in common: one core loop on a WorkerThread,
// driven from the UI thread. pause/resume/cancel only forward to the core loop; they take effect between its
// batches or rounds.
class ThreadRunner : public QObject {
    Q_OBJECT
public:
    void pause();
    void resume();
    void cancel() { worker().cancel(); }
    bool isRunning() const { return worker().isRunning(); }
    bool isPaused() const { return worker().isPaused(); }
    // Blocks until the worker has ended (used on shutdown).
    void wait() { worker().wait(); }

signals:
    // The loop was recorded (or reopened) under this id (a session's, a workload's).
    void started(qint64 id);
    void pausedChanged(bool paused);

protected:
    explicit ThreadRunner(QObject* parent) : QObject(parent) {}
    // The runner's own WorkerThread, its last member (so that it is joined before the others go).
    virtual WorkerThread& worker() = 0;
    virtual const WorkerThread& worker() const = 0;
};

} // namespace ts::gui
