#pragma once

#include <QString>
#include <functional>
#include <mutex>

class QObject;
class QThread;

namespace ts::gui {

// The worker-thread shape the window's runners share (SessionRunner, WorkloadRunner): one thread at a time
// runs one core loop (a TuningSession, a WorkloadRun); pause, resume and cancel are forwarded to the loop
// under a lock, and those asked before the loop exists reach it when it attaches; when the thread has ended,
// `ended` runs on the owner's thread. Owned by its runner and used from the runner's thread, except attach()
// and detach(), which the work calls on the worker thread. Declare it as the runner's last member: its
// destructor cancels the loop and joins the thread while the runner's other members are still alive.
class WorkerThread {
public:
    // The running loop's controls.
    struct Controls {
        std::function<void()> pause, resume, cancel;
    };

    WorkerThread(QObject& owner, QString name);
    ~WorkerThread();
    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;

    // Starts `work` on a new thread; returns false when the previous one is still running. What the work
    // leaves in its owner's members is visible to `ended` (the end reaches the owner's thread through its
    // event queue).
    bool start(std::function<void()> work, std::function<void()> ended);
    // Worker thread: the loop the controls reach from now until detach().
    template <typename Loop> void attach(Loop& loop) {
        attachControls({[&loop] { loop.pause(); }, [&loop] { loop.resume(); }, [&loop] { loop.cancel(); }});
    }
    void detach();

    // Each returns whether the state changed (pause: running and not paused yet; resume: paused).
    bool pause();
    bool resume();
    void cancel();
    bool isRunning() const { return m_running; }
    bool isPaused() const { return m_paused; }
    // Blocks until the thread has ended (used on shutdown).
    void wait();

private:
    void attachControls(Controls controls);
    void onFinished(const std::function<void()>& ended);

    QObject& m_owner;
    QString m_name;
    QThread* m_thread = nullptr;
    bool m_running = false;
    bool m_paused = false;

    // Shared with the worker thread.
    std::mutex m_mutex;
    Controls m_loop; // empty while no loop is attached
    bool m_cancelRequested = false;
    bool m_pauseRequested = false;
};

} // namespace ts::gui
