#pragma once

#include "store/RecordStore.h"
#include "store/SessionLock.h"
#include "workload/TaskScheduler.h"
#include "workload/WorkloadObserver.h"
#include "workload/WorkloadPlan.h"
#include "workload/WorkloadPool.h"
#include "workload/WorkloadTask.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
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
    // The same with the measurements dealt to `pool` (the ranks of an MPI job): a batch of the chosen task
    // goes to every free slot bound to it as soon as one frees up, tasks whose slots are busy or whose
    // session waits for its batches in flight are passed over for the next choice, and results are recorded
    // in the order they complete. The budget counts the trials in flight. cancel() gives them up, as does a
    // pool that stops waiting (a lost rank): the workload then ends as cancelled, resumable.
    WorkloadStop run(WorkloadPool& pool);

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
    // A batch of a task dealt to a pool and not back yet.
    struct DealtBatch {
        std::size_t task = 0;
        std::int64_t sessionTicket = 0;
        std::int64_t configs = 0;
    };
    // The rounds of run() and run(pool), between the opening and the closing they share.
    WorkloadStop loop(const std::function<WorkloadStop()>& rounds);
    WorkloadStop roundsInTurn();
    WorkloadStop roundsOnPool(WorkloadPool& pool);
    // Deals batches to the pool's free slots until none is free, the budget is in flight or no task can
    // take one now; returns Done when no task can take trials and nothing is in flight.
    std::optional<WorkloadStop> dealBatches(WorkloadPool& pool, std::map<std::int64_t, DealtBatch>& inFlight);
    void completeBatch(const DealtBatch& batch, MeasurePool::Completed done);
    // The task for the next round: the warm-up's (a task with no round and none in flight), else the
    // scheduler's among the tasks not `passedOver` (busy slots, or a session waiting for its batches).
    std::optional<std::size_t> chooseTask(std::int64_t trialsLeft, const std::vector<bool>& passedOver) const;
    void runRound(std::size_t task, std::int64_t trialsLeft);
    // After a round: the task's state rebuilt from its session's trials, and its strategy's expected gain
    // taken into the state and (when it changed) the stored task, for a resume.
    void rebuildHistory(std::size_t task);
    bool openTask(std::size_t task, WorkloadPool* pool);
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
    std::vector<std::size_t> m_batchesInFlight;                 // per task, run(pool) only
    std::int64_t m_trialsInFlight = 0;
    std::int64_t m_nextTicket = 0;
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
