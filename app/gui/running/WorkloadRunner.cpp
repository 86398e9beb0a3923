#include "running/WorkloadRunner.h"

#include "store/RecordStore.h"
#include "workload/WorkloadRun.h"

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

WorkloadRunner::WorkloadRunner(QObject* parent) : ThreadRunner(parent) {
    qRegisterMetaType<WorkloadUpdate>();
}

WorkloadRunner::~WorkloadRunner() = default;

bool WorkloadRunner::start(Request request) {
    if (isRunning())
        return false;
    WorkloadRun::validate(request.plan);
    m_stop.clear();
    m_error.clear();
    m_workloadId.reset();
    return m_worker.start([this, request = std::move(request)] { runInWorker(request); },
                          [this] { emit finished(m_stop, m_error); });
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
        m_worker.attach(*run);
        const WorkloadStop stop = run->run();
        m_worker.detach();
        m_stop = toString(stop);
    } catch (const std::exception& e) {
        m_worker.detach();
        m_stop = "failed";
        m_error = QString::fromUtf8(e.what());
    }
}

} // namespace ts::gui
