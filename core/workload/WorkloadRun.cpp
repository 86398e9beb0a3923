#include "workload/WorkloadRun.h"

#include "kernels/KernelSizes.h"
#include "strategies/StrategyRegistry.h"
#include "util/BoundedJson.h"
#include "util/Error.h"
#include "workload/SchedulerRegistry.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ts {

const char* toString(WorkloadStop stop) {
    switch (stop) {
    case WorkloadStop::Budget:
        return "budget";
    case WorkloadStop::Done:
        return "done";
    case WorkloadStop::Cancelled:
        return "cancelled";
    }
    return "unknown";
}

namespace {

double unixSeconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

double monotonicSeconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string taskLabel(std::size_t index, const WorkloadTaskPlan& task) {
    return fmt::format("task {} (\"{}\")", index + 1, task.name);
}

// Hands a task session's trials to the workload's observers, with the task's number.
class TaskTrialForwarder : public SessionObserver {
public:
    TaskTrialForwarder(const std::vector<WorkloadObserver*>& observers, std::size_t task)
        : m_observers(observers), m_task(task) {}
    void trialFinished(const Trial& trial) override {
        for (WorkloadObserver* observer : m_observers)
            observer->trialFinished(m_task, trial);
    }

private:
    const std::vector<WorkloadObserver*>& m_observers;
    std::size_t m_task;
};

// What identifies a task's kernel before its session is built: tasks with the same key share a kernel, so
// that the later ones start warm from the earlier ones' sessions.
std::string kernelKey(const WorkloadTaskPlan& task) {
    const SessionPlan& plan = task.plan;
    if (!plan.kernel.kernel.empty())
        return "kernel:" + plan.kernel.kernel;
    if (!plan.kernel.kernelSpec.empty())
        return "spec:" + plan.kernel.kernelSpec;
    return "dataset:" + plan.dataset;
}

} // namespace

void WorkloadRun::validate(const WorkloadPlan& plan) {
    plan.check();
    SchedulerRegistry::builtin().create(plan.scheduler, plan.schedulerOptions, plan.seed);
    for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
        try {
            PreparedSession::validate(plan.tasks[i].plan);
        } catch (const Error& error) {
            throw Error(
                fmt::format("Workload \"{}\", {}: {}", plan.name, taskLabel(i, plan.tasks[i]), error.what()));
        }
    }
}

std::unique_ptr<WorkloadRun> WorkloadRun::create(const WorkloadPlan& plan, RecordStore& store, Hooks hooks) {
    validate(plan);
    return std::unique_ptr<WorkloadRun>(
        new WorkloadRun(plan.withAbsolutePaths(), store, std::move(hooks), std::nullopt));
}

std::unique_ptr<WorkloadRun> WorkloadRun::resume(RecordStore& store, std::int64_t id, Hooks hooks) {
    std::optional<WorkloadRecord> record = store.workload(id);
    if (!record)
        throw Error(fmt::format("The records database {} has no workload {}.", store.path().string(), id));
    const WorkloadPlan plan =
        WorkloadPlan::fromJson(parseBoundedJson(record->plan, fmt::format("the plan of workload {}", id)),
                               fmt::format("the plan of workload {}", id));
    if (plan.tasks.size() != record->tasks.size())
        throw Error(fmt::format("Workload {} of {} is damaged: its plan has {} tasks and its record {}.", id,
                                store.path().string(), plan.tasks.size(), record->tasks.size()));
    return std::unique_ptr<WorkloadRun>(new WorkloadRun(plan, store, std::move(hooks), std::move(record)));
}

WorkloadRun::WorkloadRun(WorkloadPlan plan, RecordStore& store, Hooks hooks,
                         std::optional<WorkloadRecord> resumed)
    : m_plan(std::move(plan)), m_store(store), m_hooks(std::move(hooks)), m_resumeOf(std::move(resumed)) {
    const SchedulerRegistry& registry = SchedulerRegistry::builtin();
    m_plan.scheduler = registry.entry(m_plan.scheduler).name;
    m_scheduler = registry.create(m_plan.scheduler, m_plan.schedulerOptions, m_plan.seed);
    m_schedulerOptionsJson = registry.optionsJson(m_plan.scheduler, m_plan.schedulerOptions);
    for (std::size_t i = 0; i < m_plan.tasks.size(); ++i) {
        WorkloadTaskRecord record;
        if (m_resumeOf) {
            record = m_resumeOf->tasks[i];
        } else {
            record.position = static_cast<int>(i);
            record.name = m_plan.tasks[i].name;
            record.weight = m_plan.tasks[i].weight;
        }
        m_tasks.emplace_back(m_plan.tasks[i], record);
        m_tasks.back().state().group = kernelKey(m_plan.tasks[i]);
    }
}

WorkloadRun::~WorkloadRun() = default;

void WorkloadRun::say(const std::string& line) const {
    if (m_hooks.notice)
        m_hooks.notice(line);
}

std::int64_t WorkloadRun::open() {
    if (m_id)
        throw Error(fmt::format("Workload {} is open already.", *m_id));
    if (m_resumeOf) {
        m_lock.emplace(SessionLock::ofWorkload(m_store.path(), m_resumeOf->id));
        if (m_resumeOf->status == "completed" && trialsSpent() >= m_plan.budget)
            throw Error(
                fmt::format("Workload {} has spent its budget of {} trials; nothing is left to resume.",
                            m_resumeOf->id, m_plan.budget));
        for (std::size_t i = 0; i < m_tasks.size(); ++i)
            loadStoredTrials(i);
        if (trialsSpent() >= m_plan.budget)
            throw Error(
                fmt::format("Workload {} has spent its budget of {} trials; nothing is left to resume.",
                            m_resumeOf->id, m_plan.budget));
        m_store.reopenWorkload(m_resumeOf->id);
        m_id = m_resumeOf->id;
        return *m_id;
    }
    WorkloadRecord record;
    record.name = m_plan.name;
    record.device = m_plan.backend;
    record.scheduler = m_plan.scheduler;
    record.options = m_schedulerOptionsJson;
    record.seed = m_plan.seed;
    record.budget = m_plan.budget;
    record.plan = m_plan.toJson().dump();
    record.toolVersion = TUNESCOPE_VERSION;
    record.startedAt = unixSeconds();
    for (const WorkloadTask& task : m_tasks)
        record.tasks.push_back(task.record());
    m_id = m_store.beginWorkload(record);
    m_lock.emplace(SessionLock::ofWorkload(m_store.path(), *m_id));
    return *m_id;
}

// A resumed task's trials as stored, for the scheduler; a task that had ended takes no more rounds.
void WorkloadRun::loadStoredTrials(std::size_t index) {
    WorkloadTask& task = m_tasks[index];
    const WorkloadTaskRecord& record = task.record();
    if (record.session) {
        std::vector<WorkloadTask::Outcome> outcomes;
        for (const StoredTrial& trial : m_store.trials(*record.session))
            outcomes.push_back({trial.batch,
                                trial.status == toString(MeasureStatus::Ok) && std::isfinite(trial.objective),
                                trial.objective});
        task.rebuildHistory(outcomes);
    }
    task.state().active = record.status != "done" && record.status != "failed";
    task.state().expectedGain = record.expectedGain;
}

std::vector<TaskState> WorkloadRun::states() const {
    std::vector<TaskState> states;
    for (const WorkloadTask& task : m_tasks)
        states.push_back(task.state());
    return states;
}

std::uint64_t WorkloadRun::rounds() const {
    std::uint64_t rounds = 0;
    for (const WorkloadTask& task : m_tasks)
        rounds += task.state().bestHistory.size();
    return rounds;
}

std::int64_t WorkloadRun::trialsSpent() const {
    std::int64_t trials = 0;
    for (const WorkloadTask& task : m_tasks)
        trials += task.state().trials;
    return trials;
}

// Warm-up first: every active task of positive weight gets a round, in the file's order, before the
// scheduler is asked.
std::optional<std::size_t> WorkloadRun::chooseTask(std::int64_t trialsLeft,
                                                   const std::vector<bool>& passedOver) const {
    auto passed = [&](std::size_t i) { return i < passedOver.size() && passedOver[i]; };
    auto inFlight = [&](std::size_t i) { return i < m_batchesInFlight.size() && m_batchesInFlight[i] > 0; };
    for (std::size_t i = 0; i < m_tasks.size(); ++i) {
        const TaskState& state = m_tasks[i].state();
        if (state.active && state.weight > 0 && state.bestHistory.empty() && !inFlight(i) && !passed(i))
            return i;
    }
    std::vector<TaskState> candidates = states();
    for (std::size_t i = 0; i < candidates.size(); ++i)
        candidates[i].active = candidates[i].active && !passed(i);
    std::optional<std::size_t> chosen = m_scheduler->next(candidates, rounds(), trialsLeft);
    if (chosen && (*chosen >= m_tasks.size() || !candidates[*chosen].active))
        throw Error(fmt::format("The {} scheduler chose task {}, which cannot take trials.", m_plan.scheduler,
                                *chosen + 1));
    return chosen;
}

WorkloadStop WorkloadRun::run() {
    return loop([this] { return roundsInTurn(); });
}

WorkloadStop WorkloadRun::run(WorkloadPool& pool) {
    return loop([this, &pool] { return roundsOnPool(pool); });
}

WorkloadStop WorkloadRun::loop(const std::function<WorkloadStop()>& rounds) {
    if (!m_id)
        throw Error("The workload was not opened: open() records it before it runs.");
    m_startedAt = monotonicSeconds();
    m_pausedS = 0.0;
    WorkloadStop stop = WorkloadStop::Budget;
    try {
        stop = rounds();
    } catch (...) {
        // The records database or a backend failed: the sessions still open end as interrupted (resumable),
        // the workload as failed.
        for (WorkloadTask& task : m_tasks)
            if (PreparedSession* session = task.session()) {
                try {
                    session->finish(StopReason::Cancelled);
                } catch (const std::exception&) {
                }
                task.closeSession();
            }
        try {
            m_store.endWorkload(*m_id, "failed");
        } catch (const std::exception&) {
        }
        m_lock.reset();
        throw;
    }
    const StopReason reason = stop == WorkloadStop::Cancelled ? StopReason::Cancelled : StopReason::Budget;
    for (std::size_t i = 0; i < m_tasks.size(); ++i) {
        WorkloadTask& task = m_tasks[i];
        if (PreparedSession* session = task.session()) {
            session->finish(reason);
            task.closeSession();
        }
        if (stop != WorkloadStop::Cancelled && task.record().status == "tuning") {
            task.record().status = "done";
            saveTask(i);
        }
    }
    m_store.endWorkload(*m_id, stop == WorkloadStop::Cancelled ? "cancelled" : "completed");
    m_lock.reset();
    for (WorkloadObserver* observer : m_observers)
        observer->finished(stop);
    return stop;
}

WorkloadStop WorkloadRun::roundsInTurn() {
    while (true) {
        if (m_cancelled || !waitWhilePaused())
            return WorkloadStop::Cancelled;
        const std::int64_t left = m_plan.budget - trialsSpent();
        if (left <= 0)
            return WorkloadStop::Budget;
        const std::optional<std::size_t> task = chooseTask(left, {});
        if (!task)
            return WorkloadStop::Done;
        runRound(*task, left);
        WorkloadProgress snapshot = progress();
        snapshot.task = *task;
        for (WorkloadObserver* observer : m_observers)
            observer->roundFinished(snapshot);
    }
}

WorkloadStop WorkloadRun::roundsOnPool(WorkloadPool& pool) {
    m_batchesInFlight.assign(m_tasks.size(), 0);
    m_trialsInFlight = 0;
    std::map<std::int64_t, DealtBatch> inFlight; // by the workload's ticket
    while (true) {
        if (m_cancelled)
            return WorkloadStop::Cancelled;
        if (!m_paused) {
            const std::optional<WorkloadStop> stop = dealBatches(pool, inFlight);
            if (m_cancelled)
                return WorkloadStop::Cancelled; // also when the pool went while a task was being sent
            if (inFlight.empty())
                return stop.value_or(WorkloadStop::Done); // nothing could be dealt: no task takes more
        } else if (inFlight.empty()) {
            if (!waitWhilePaused())
                return WorkloadStop::Cancelled;
            continue;
        }
        std::optional<MeasurePool::Completed> done = pool.waitAny([this] { return m_cancelled.load(); });
        if (!done)
            return WorkloadStop::Cancelled; // the batches in flight are given up, not recorded
        for (; done; done = pool.poll()) {  // every result at hand before the next choice
            auto it = inFlight.find(done->ticket);
            if (it == inFlight.end())
                throw Error(fmt::format("The measuring pool returned batch {}, which is not in flight.",
                                        done->ticket));
            const DealtBatch batch = it->second;
            inFlight.erase(it);
            completeBatch(batch, std::move(*done));
        }
    }
}

std::optional<WorkloadStop> WorkloadRun::dealBatches(WorkloadPool& pool,
                                                     std::map<std::int64_t, DealtBatch>& inFlight) {
    std::vector<bool> passedOver(m_tasks.size(), false);
    while (!m_cancelled) {
        const std::int64_t left = m_plan.budget - trialsSpent() - m_trialsInFlight;
        if (left <= 0)
            return trialsSpent() >= m_plan.budget ? std::optional(WorkloadStop::Budget) : std::nullopt;
        const std::optional<std::size_t> chosen = chooseTask(left, passedOver);
        if (!chosen) {
            const bool anyPassed = std::find(passedOver.begin(), passedOver.end(), true) != passedOver.end();
            return anyPassed ? std::nullopt : std::optional(WorkloadStop::Done);
        }
        const std::size_t index = *chosen;
        WorkloadTask& task = m_tasks[index];
        if (!task.session() && !openTask(index, &pool))
            continue; // failed: the next choice
        if (pool.freeSlots(index) == 0) {
            passedOver[index] = true;
            continue;
        }
        PreparedSession& session = *task.session();
        std::optional<TuningSession::Dealt> dealt = session.deal(static_cast<std::size_t>(left));
        if (!dealt) {
            if (m_batchesInFlight[index] > 0) {
                passedOver[index] = true; // it may go on once it hears of its batches in flight
                continue;
            }
            const std::optional<StopReason> reason = session.session().stopReason();
            endTask(index, reason.value_or(StopReason::Exhausted));
            continue;
        }
        const std::int64_t ticket = m_nextTicket++;
        pool.submit(index, ticket, dealt->indices);
        const auto configs = static_cast<std::int64_t>(dealt->indices.size());
        inFlight.emplace(ticket, DealtBatch{index, dealt->ticket, configs});
        ++m_batchesInFlight[index];
        m_trialsInFlight += configs;
    }
    return std::nullopt;
}

void WorkloadRun::completeBatch(const DealtBatch& batch, MeasurePool::Completed done) {
    WorkloadTask& task = m_tasks[batch.task];
    --m_batchesInFlight[batch.task];
    m_trialsInFlight -= batch.configs;
    PreparedSession& session = *task.session(); // a task with batches in flight is never ended
    session.complete(batch.sessionTicket, std::move(done.measurements));
    rebuildHistory(batch.task);
    if (m_batchesInFlight[batch.task] == 0)
        if (const std::optional<StopReason> reason = session.session().stopReason())
            endTask(batch.task, *reason); // as a round of run() that returns why its session stopped
    WorkloadProgress snapshot = progress();
    snapshot.task = batch.task;
    for (WorkloadObserver* observer : m_observers)
        observer->roundFinished(snapshot);
}

void WorkloadRun::rebuildHistory(std::size_t index) {
    WorkloadTask& task = m_tasks[index];
    std::vector<WorkloadTask::Outcome> outcomes;
    for (const Trial& trial : task.session()->session().trials())
        outcomes.push_back(
            {trial.batch, trial.measurement.status == MeasureStatus::Ok, trial.measurement.objective});
    task.rebuildHistory(outcomes);
    const std::optional<double> gain = task.session()->strategy().expectedGain();
    task.state().expectedGain = gain;
    if (gain != task.record().expectedGain) {
        task.record().expectedGain = gain;
        saveTask(index);
    }
}

void WorkloadRun::runRound(std::size_t index, std::int64_t trialsLeft) {
    WorkloadTask& task = m_tasks[index];
    if (!task.session() && !openTask(index, nullptr))
        return;
    PreparedSession& session = *task.session();
    const std::size_t before = session.session().trials().size();
    const std::optional<StopReason> reason = session.step(static_cast<std::size_t>(trialsLeft));
    rebuildHistory(index);
    if (reason)
        endTask(index, *reason);
    else if (session.session().trials().size() == before)
        endTask(index, StopReason::Exhausted); // nothing measured and no reason: never loop on it
}

// Builds (or, after a resume, reopens) the task's session; a task that cannot be built fails with the
// sentence that says why.
bool WorkloadRun::openTask(std::size_t index, WorkloadPool* pool) {
    WorkloadTask& task = m_tasks[index];
    const std::string label = taskLabel(index, task.plan());
    PreparedSession::Hooks hooks;
    hooks.warmStart = [this, label](const std::string& line) { say(fmt::format("{}: {}", label, line)); };
    hooks.notice = [](const std::string&) {}; // the budget is the workload's: its cap says nothing here
    if (m_hooks.dataset && !task.plan().plan.measuresKernel())
        hooks.dataset = m_hooks.dataset(task.plan().plan.dataset);
    std::unique_ptr<PreparedSession> session;
    try {
        if (task.record().session) {
            session = PreparedSession::resume(m_store, *task.record().session, std::nullopt, hooks);
        } else {
            SessionPlan plan = task.plan().plan;
            plan.budget = m_plan.budget;
            if (!plan.transfer && StrategyRegistry::builtin().create(plan.strategy)->usesPrior())
                for (const WorkloadTask& other : m_tasks)
                    plan.transfer = plan.transfer || (&other != &task && other.record().session &&
                                                      other.state().group == task.state().group);
            session = PreparedSession::create(plan, m_store, hooks);
        }
        // Before open(): a task that no slot can measure records no session.
        if (pool && !pool->addTask(index, session->plan(), session->space(),
                                   session->backend().deviceFingerprint())) {
            cancel(); // the pool is gone (a lost rank): the workload stops, resumable
            return false;
        }
        session->session().addObserver(
            m_forwarders.emplace_back(std::make_unique<TaskTrialForwarder>(m_observers, index)).get());
        task.record().session = session->open();
    } catch (const Error& error) {
        failTask(index, error.what());
        return false;
    }
    if (const Dataset* dataset = session->dataset())
        task.setOptimum(dataset->optimum());
    if (const KernelSessionTarget* kernel = session->kernelTarget())
        task.state().flops = kernelFlops(kernel->spec(), kernel->size());
    task.record().status = "tuning";
    task.setSession(std::move(session));
    saveTask(index);
    for (WorkloadObserver* observer : m_observers)
        observer->taskOpened(index, *task.record().session);
    return true;
}

void WorkloadRun::failTask(std::size_t index, const std::string& error) {
    WorkloadTask& task = m_tasks[index];
    task.state().active = false;
    task.record().status = "failed";
    task.record().error = error;
    task.closeSession();
    saveTask(index);
    say(fmt::format("{} failed: {}", taskLabel(index, task.plan()), error));
    for (WorkloadObserver* observer : m_observers)
        observer->taskFailed(index, error);
}

// The task's session stopped on its own (space exhausted, target reached, patience): it takes no more
// rounds. A task that measured configs but none of them ran correctly is failed.
void WorkloadRun::endTask(std::size_t index, StopReason reason) {
    WorkloadTask& task = m_tasks[index];
    task.session()->finish(reason);
    task.closeSession();
    task.state().active = false;
    if (!std::isfinite(task.state().best())) {
        failTask(index, fmt::format("none of its {} configs measured ran correctly (see `records show {} "
                                    "--log`).",
                                    task.state().trials, task.record().session.value_or(0)));
        return;
    }
    task.record().status = "done";
    saveTask(index);
}

void WorkloadRun::saveTask(std::size_t index) {
    m_store.updateWorkloadTask(*m_id, m_tasks[index].record());
}

WorkloadProgress WorkloadRun::progress() const {
    WorkloadProgress progress;
    progress.rounds = rounds();
    progress.trials = trialsSpent();
    progress.budget = m_plan.budget;
    const std::vector<TaskState> all = states();
    progress.endToEndMs = endToEndLatency(all);
    double oracle = 0.0;
    bool oracleKnown = true;
    for (const WorkloadTask& task : m_tasks) {
        progress.trialsPerTask.push_back(task.state().trials);
        progress.expectedGainPerTask.push_back(task.state().expectedGain);
        if (task.state().weight <= 0)
            continue;
        if (!std::isfinite(task.state().best()))
            ++progress.tasksWithoutBest;
        if (task.optimum())
            oracle += task.state().weight * *task.optimum();
        else
            oracleKnown = false;
    }
    if (oracleKnown)
        progress.oracleMs = oracle;
    // Running time: the time it waited paused does not count.
    progress.elapsedS = m_startedAt > 0 ? monotonicSeconds() - m_startedAt - m_pausedS : 0.0;
    return progress;
}

bool WorkloadRun::waitWhilePaused() {
    std::unique_lock lock(m_pauseMutex);
    if (m_paused && !m_cancelled) {
        const double from = monotonicSeconds();
        m_pauseChanged.wait(lock, [this] { return !m_paused || m_cancelled; });
        m_pausedS += monotonicSeconds() - from;
    }
    return !m_cancelled;
}

void WorkloadRun::pause() {
    std::lock_guard lock(m_pauseMutex);
    m_paused = true;
}

void WorkloadRun::resume() {
    {
        std::lock_guard lock(m_pauseMutex);
        m_paused = false;
    }
    m_pauseChanged.notify_all();
}

void WorkloadRun::cancel() {
    {
        std::lock_guard lock(m_pauseMutex);
        m_cancelled = true;
    }
    m_pauseChanged.notify_all();
}

} // namespace ts
