#include "WorkloadRunner.h"

#include "records/RecordStore.h"
#include "workload/WorkloadRun.h"

#include <QThread>
#include <cmath>

namespace ts::gui {

// The workload's observer, on the worker thread: keeps each task's best and posts what it hears to the
// runner's thread, so the core loop never waits for the UI.
class WorkloadRunner::Bridge : public WorkloadObserver {
public:
    Bridge(WorkloadRunner& runner, std::size_t tasks) : m_runner(runner), m_best(tasks, INFINITY) {}

    void taskOpened(std::size_t task, std::int64_t session) override {
        post([task, session](WorkloadRunner& r) { emit r.taskOpened(static_cast<int>(task), session); });
    }
    void trialFinished(std::size_t task, const Trial& trial) override {
        if (task < m_best.size() && trial.measurement.status == MeasureStatus::Ok &&
            std::isfinite(trial.measurement.objective))
            m_best[task] = std::min(m_best[task], trial.measurement.objective);
    }
    void taskFailed(std::size_t task, const std::string& error) override {
        post([task, text = QString::fromStdString(error)](WorkloadRunner& r) {
            emit r.taskFailed(static_cast<int>(task), text);
        });
    }
    void roundFinished(const WorkloadProgress& progress) override {
        post(
            [update = WorkloadUpdate{progress, m_best}](WorkloadRunner& r) { emit r.roundFinished(update); });
    }

private:
    // The runner outlives the call (it is the context object), not this bridge: capture the runner only.
    template <typename F> void post(F f) {
        WorkloadRunner* runner = &m_runner;
        QMetaObject::invokeMethod(runner, [runner, f = std::move(f)] { f(*runner); });
    }
    WorkloadRunner& m_runner;
    std::vector<double> m_best;
};

WorkloadRunner::WorkloadRunner(QObject* parent) : QObject(parent) {
    qRegisterMetaType<WorkloadUpdate>();
}

WorkloadRunner::~WorkloadRunner() {
    cancel();
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

bool WorkloadRunner::start(Request request) {
    if (m_running)
        return false;
    WorkloadRun::validate(request.plan);
    {
        std::lock_guard lock(m_mutex);
        m_run = nullptr;
        m_cancelRequested = false;
        m_pauseRequested = false;
        m_stop.clear();
        m_error.clear();
    }
    m_workloadId.reset();
    m_running = true;
    m_paused = false;
    m_thread = QThread::create([this, request = std::move(request)] { runInWorker(request); });
    m_thread->setObjectName("workload");
    connect(m_thread, &QThread::finished, this, &WorkloadRunner::onThreadFinished);
    m_thread->start();
    return true;
}

void WorkloadRunner::runInWorker(const Request& request) {
    WorkloadRun::Hooks hooks;
    hooks.notice = [this](const std::string& line) {
        QMetaObject::invokeMethod(this, [this, text = QString::fromStdString(line)] { emit notice(text); });
    };
    try {
        RecordStore store(request.databasePath.toStdString());
        std::unique_ptr<WorkloadRun> run = WorkloadRun::create(request.plan, store, hooks);
        Bridge bridge(*this, run->tasks().size());
        run->addObserver(&bridge);
        const std::int64_t id = run->open();
        QMetaObject::invokeMethod(this, [this, id] {
            m_workloadId = id;
            emit started(id);
        });
        {
            std::lock_guard lock(m_mutex);
            m_run = run.get();
            if (m_cancelRequested)
                run->cancel();
            if (m_pauseRequested)
                run->pause();
        }
        const WorkloadStop stop = run->run();
        std::lock_guard lock(m_mutex);
        m_run = nullptr;
        m_stop = toString(stop);
    } catch (const std::exception& e) {
        std::lock_guard lock(m_mutex);
        m_run = nullptr;
        m_stop = "failed";
        m_error = QString::fromUtf8(e.what());
    }
}

void WorkloadRunner::onThreadFinished() {
    m_thread->deleteLater();
    m_thread = nullptr;
    m_running = false;
    m_paused = false;
    QString stop, error;
    {
        std::lock_guard lock(m_mutex);
        stop = m_stop;
        error = m_error;
    }
    emit finished(stop, error);
}

void WorkloadRunner::pause() {
    if (!m_running || m_paused)
        return;
    {
        std::lock_guard lock(m_mutex);
        m_pauseRequested = true;
        if (m_run)
            m_run->pause();
    }
    m_paused = true;
    emit pausedChanged(true);
}

void WorkloadRunner::resume() {
    if (!m_running || !m_paused)
        return;
    {
        std::lock_guard lock(m_mutex);
        m_pauseRequested = false;
        if (m_run)
            m_run->resume();
    }
    m_paused = false;
    emit pausedChanged(false);
}

void WorkloadRunner::cancel() {
    std::lock_guard lock(m_mutex);
    m_cancelRequested = true;
    if (m_run)
        m_run->cancel();
}

void WorkloadRunner::wait() {
    if (m_thread)
        m_thread->wait();
}

} // namespace ts::gui
