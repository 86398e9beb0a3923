#pragma once

#include "records/RecordStore.h"
#include "records/SessionLock.h"
#include "workload/TaskScheduler.h"
#include "workload/WorkloadObserver.h"
#include "workload/WorkloadPlan.h"
#include "workload/WorkloadTask.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// A workload being tuned: its tasks' sessions interleaved one round (one batch) at a time, the scheduler
// choosing which task gets the next round, until the budget of trials over all tasks is spent (Ansor's task
// scheduler loop). Each task is a normal session (its own strategy, records and resume), created when the
// task gets its first round; a task of a kernel measured before it at other sizes starts warm from those
// sessions (transfer). A task that does not build, has no valid config at its size or whose configs all
// fail is marked failed with its sentence, and the workload goes on.
//
// Use: create() or resume(), add observers, open(), run(). pause(), resume() and cancel() may be called from
// any thread; they take effect between rounds. Throws Error (one sentence naming the input) on a plan that
// cannot run, before anything is recorded.
class WorkloadRun {
public:
    struct Hooks {
        // Lines for the user: warm starts, notices, tasks given up.
        std::function<void(const std::string&)> notice;
        // The replay dataset of a path when the caller has it loaded already (a benchmark running the same
        // workload many times), else null; unset: every task reads its own.
        std::function<std::shared_ptr<const Dataset>(const std::string& path)> dataset;
    };

    // The plan's checks, the scheduler and its options, and every task's session checks, naming the task.
    static void validate(const WorkloadPlan& plan);
    static std::unique_ptr<WorkloadRun> create(const WorkloadPlan& plan, RecordStore& store,
                                               Hooks hooks = {});
    // Workload `id` continued where it stopped: tasks keep their sessions and trials (never measured again);
    // refused when it is not in the store or has spent its budget.
    static std::unique_ptr<WorkloadRun> resume(RecordStore& store, std::int64_t id, Hooks hooks = {});

    ~WorkloadRun();
    WorkloadRun(const WorkloadRun&) = delete;
    WorkloadRun& operator=(const WorkloadRun&) = delete;

    void addObserver(WorkloadObserver* observer) { m_observers.push_back(observer); }
    // Records the workload (or reopens the resumed one) and takes its lock. Returns its id.
    std::int64_t open();
    // Rounds until the budget is spent, no task can take more, or cancel(); closes every task's session and
    // the workload's record. Errors of the records database are rethrown after closing what can be closed.
    WorkloadStop run();

    void pause();
    void resume();
    void cancel();
    bool isPaused() const { return m_paused; }

    const WorkloadPlan& plan() const { return m_plan; }
    std::optional<std::int64_t> id() const { return m_id; }
    const std::vector<WorkloadTask>& tasks() const { return m_tasks; }
    const TaskScheduler& scheduler() const { return *m_scheduler; }
    WorkloadProgress progress() const;

private:
    WorkloadRun(WorkloadPlan plan, RecordStore& store, Hooks hooks, std::optional<WorkloadRecord> resumed);
    std::optional<std::size_t> chooseTask(std::int64_t trialsLeft) const;
    void runRound(std::size_t task, std::int64_t trialsLeft);
    bool openTask(std::size_t task);
    void failTask(std::size_t task, const std::string& error);
    void endTask(std::size_t task, StopReason reason);
    void saveTask(std::size_t task);
    void loadStoredTrials(std::size_t task);
    std::vector<TaskState> states() const;
    std::uint64_t rounds() const;
    std::int64_t trialsSpent() const;
    bool waitWhilePaused();
    void say(const std::string& line) const;

    WorkloadPlan m_plan;
    RecordStore& m_store;
    Hooks m_hooks;
    std::optional<WorkloadRecord> m_resumeOf;
    std::unique_ptr<TaskScheduler> m_scheduler;
    std::string m_schedulerOptionsJson;
    std::vector<WorkloadTask> m_tasks;
    std::vector<WorkloadObserver*> m_observers;
    std::vector<std::unique_ptr<SessionObserver>> m_forwarders; // one per opened task session
    std::optional<std::int64_t> m_id;
    std::optional<SessionLock> m_lock;
    double m_startedAt = 0.0;
    double m_pausedS = 0.0; // waited paused since m_startedAt

    std::atomic<bool> m_cancelled{false};
    std::atomic<bool> m_paused{false};
    std::mutex m_pauseMutex;
    std::condition_variable m_pauseChanged;
};

} // namespace ts
