// core's WorkloadRun on real replay datasets and a real records database: the budget is spent exactly over
// the tasks, every task gets rounds, a cancelled workload resumes with nothing measured twice, a task that
// cannot be built fails with its sentence while the others go on, and a task of a kernel measured before it
// starts warm from the earlier task's session.
#include "backends/ReplayBackend.h"
#include "datasets/DatasetReader.h"
#include "store/RecordStore.h"
#include "util/Error.h"
#include "workload/WorkloadRun.h"

#include "ErrorOf.h"

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <thread>

using namespace ts;

namespace {

template <typename F> QString errorOf(F&& f) {
    return QString::fromStdString(ts::test::errorOf(std::forward<F>(f)));
}

const std::string kResources = TUNESCOPE_RESOURCES;

WorkloadTaskPlan replayTask(const std::string& name, const std::string& dataset, double weight,
                            const std::string& strategy = "random_sample") {
    WorkloadTaskPlan task;
    task.name = name;
    task.weight = weight;
    task.plan.backend = "replay";
    task.plan.dataset = kResources + "/datasets/" + dataset;
    task.plan.strategy = strategy;
    task.plan.batchSize = 4;
    return task;
}

WorkloadPlan replayWorkload(std::int64_t budget, const std::string& scheduler = "round_robin") {
    WorkloadPlan plan;
    plan.name = "replay-test";
    plan.backend = "replay";
    plan.scheduler = scheduler;
    plan.seed = 7;
    plan.budget = budget;
    plan.tasks = {replayTask("pnpoly", "pnpoly_RTX_3090.json.gz", 3.0),
                  replayTask("gemm", "gemm_clblast_RTX_3090.json.gz", 1.0),
                  replayTask("conv", "convolution_2021_RTX_3090.json.gz", 0.5)};
    return plan;
}

// Cancels the workload after a number of rounds; collects what observers hear.
class Recorder : public WorkloadObserver {
public:
    explicit Recorder(WorkloadRun* run = nullptr, std::uint64_t cancelAfter = 0)
        : m_run(run), m_cancelAfter(cancelAfter) {}
    void trialFinished(std::size_t task, const Trial&) override { ++trials[task]; }
    void taskFailed(std::size_t task, const std::string& error) override { failed[task] = error; }
    void roundFinished(const WorkloadProgress& p) override {
        last = p;
        order.push_back(p.task.value_or(std::numeric_limits<std::size_t>::max()));
        ++rounds;
        if (m_run && m_cancelAfter > 0 && rounds >= m_cancelAfter)
            m_run->cancel();
    }
    std::map<std::size_t, std::int64_t> trials;
    std::map<std::size_t, std::string> failed;
    WorkloadProgress last;
    std::vector<std::size_t> order; // the task of each round
    std::uint64_t rounds = 0;

private:
    WorkloadRun* m_run;
    std::uint64_t m_cancelAfter;
};

// Unique configs per session and their count, from the database.
std::int64_t storedTrials(const RecordStore& store, std::int64_t session, bool* duplicates = nullptr) {
    std::set<std::uint64_t> seen;
    const std::vector<StoredTrial> trials = store.trials(session);
    for (const StoredTrial& trial : trials)
        if (!seen.insert(trial.index).second && duplicates)
            *duplicates = true;
    return static_cast<std::int64_t>(trials.size());
}

double storedBest(const RecordStore& store, std::int64_t session) {
    double best = INFINITY;
    for (const StoredTrial& trial : store.trials(session))
        if (trial.status == toString(MeasureStatus::Ok))
            best = std::min(best, trial.objective);
    return best;
}

// A WorkloadPool in the test's process: `slots` slots shared by every task, results handed back last dealt
// first (the opposite of the order dealt), each task measured by a replay backend of its own dataset. A task
// whose session's device is `refused` has no slot that measures on it.
class LifoWorkloadPool : public WorkloadPool {
public:
    explicit LifoWorkloadPool(std::size_t slotCount, std::string refused = {})
        : m_slots(slotCount), m_refused(std::move(refused)) {}
    bool addTask(std::size_t task, const SessionPlan& plan, const SearchSpace&,
                 const std::string& device) override {
        if (task == goneAtTask)
            return false; // the pool went (a lost rank) while the task was being sent
        if (device == m_refused)
            throw Error("no slot measures on \"" + device + "\"");
        auto dataset = std::make_shared<const Dataset>(readDataset(plan.dataset));
        m_backends[task] = std::make_unique<ReplayBackend>(dataset);
        m_datasets[task] = dataset;
        return true;
    }
    std::size_t freeSlots(std::size_t task) const override {
        return m_backends.count(task) ? m_slots - m_inFlight.size() : 0;
    }
    void submit(std::size_t task, std::int64_t ticket, std::span<const SearchSpace::Index> batch) override {
        QVERIFY2(freeSlots(task) > 0, "a batch was dealt to a task with no free slot");
        m_inFlight.push_back({task, ticket, {batch.begin(), batch.end()}});
        mostInFlight = std::max(mostInFlight, m_inFlight.size());
        std::set<std::size_t> tasks;
        for (const Batch& b : m_inFlight)
            tasks.insert(b.task);
        mostTasksInFlight = std::max(mostTasksInFlight, tasks.size());
    }
    std::optional<MeasurePool::Completed> waitAny(const std::function<bool()>& stop) override {
        if (stop())
            return std::nullopt;
        Batch batch = m_inFlight.back();
        m_inFlight.pop_back();
        std::vector<Config> configs;
        for (SearchSpace::Index index : batch.indices)
            configs.push_back(m_datasets.at(batch.task)->space.config(index));
        return MeasurePool::Completed{batch.ticket, m_backends.at(batch.task)->measure(configs)};
    }
    std::optional<MeasurePool::Completed> poll() override { return std::nullopt; } // only when waited for
    std::size_t mostInFlight = 0;
    std::size_t mostTasksInFlight = 0;
    std::size_t goneAtTask = std::numeric_limits<std::size_t>::max();

private:
    struct Batch {
        std::size_t task;
        std::int64_t ticket;
        std::vector<SearchSpace::Index> indices;
    };
    std::size_t m_slots;
    std::string m_refused;
    std::map<std::size_t, std::unique_ptr<ReplayBackend>> m_backends;
    std::map<std::size_t, std::shared_ptr<const Dataset>> m_datasets;
    std::vector<Batch> m_inFlight;
};

// Every task's trials from the database: the total, and whether any config of a session was measured twice.
std::int64_t totalStoredTrials(const RecordStore& store, const WorkloadRecord& record, bool& duplicates) {
    std::int64_t total = 0;
    for (const WorkloadTaskRecord& task : record.tasks)
        if (task.session)
            total += storedTrials(store, *task.session, &duplicates);
    return total;
}

} // namespace

class TestWorkloadRun : public QObject {
    Q_OBJECT

private slots:
    void spendsTheBudgetOverEveryTask();
    void cancelledWorkloadResumesWithoutMeasuringTwice();
    void modelScheduledWorkloadResumesWithItsExpectedGains();
    void taskThatCannotBeBuiltFailsAndTheOthersGoOn();
    void taskOfAKernelMeasuredBeforeStartsWarm();
    void refusesWhatCannotRun();
    void pausedTimeIsNotElapsed();
    void pooledWorkloadDealsToEverySlot();
    void pooledWorkloadFailsATaskNoSlotMeasures();
    void cancelledPooledWorkloadResumesWithoutMeasuringTwice();
    void poolGoneWhileSendingATaskCancelsTheWorkload();
};

void TestWorkloadRun::spendsTheBudgetOverEveryTask() {
    QTemporaryDir dir;
    RecordStore store(dir.filePath("records.db").toStdString());
    std::unique_ptr<WorkloadRun> run = WorkloadRun::create(replayWorkload(50), store);
    Recorder recorder;
    run->addObserver(&recorder);
    const std::int64_t id = run->open();
    QCOMPARE(run->run(), WorkloadStop::Budget);

    const std::optional<WorkloadRecord> record = store.workload(id);
    QVERIFY(record.has_value());
    QCOMPARE(record->status, std::string("completed"));
    QCOMPARE(record->budget, std::int64_t{50});
    QCOMPARE(record->tasks.size(), std::size_t{3});
    std::int64_t total = 0;
    double endToEnd = 0;
    for (const WorkloadTaskRecord& task : record->tasks) {
        QVERIFY(task.session.has_value());
        QCOMPARE(task.status, std::string("done"));
        const std::int64_t trials = storedTrials(store, *task.session);
        QVERIFY2(trials > 0, task.name.c_str());
        QCOMPARE(recorder.trials[static_cast<std::size_t>(task.position)], trials);
        QCOMPARE(store.session(*task.session)->status, std::string("completed"));
        total += trials;
        endToEnd += task.weight * storedBest(store, *task.session);
    }
    QCOMPARE(total, std::int64_t{50});
    QCOMPARE(recorder.last.trials, std::int64_t{50});
    QCOMPARE(recorder.last.tasksWithoutBest, std::size_t{0});
    QVERIFY(std::isfinite(endToEnd) && endToEnd > 0);
    QVERIFY(std::abs(recorder.last.endToEndMs - endToEnd) <= 1e-9 * endToEnd);
    QVERIFY(recorder.last.oracleMs.has_value());
    QVERIFY(*recorder.last.oracleMs <= recorder.last.endToEndMs);
}

void TestWorkloadRun::cancelledWorkloadResumesWithoutMeasuringTwice() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.db").toStdString();
    std::int64_t id = 0;
    double endToEndAtCancel = 0;
    {
        RecordStore store(path);
        std::unique_ptr<WorkloadRun> run = WorkloadRun::create(replayWorkload(60), store);
        Recorder recorder(run.get(), 5);
        run->addObserver(&recorder);
        id = run->open();
        QCOMPARE(run->run(), WorkloadStop::Cancelled);
        QCOMPARE(store.workload(id)->status, std::string("cancelled"));
        QCOMPARE(recorder.last.trials, std::int64_t{20}); // five rounds of four
        endToEndAtCancel = recorder.last.endToEndMs;
    }
    RecordStore store(path);
    std::vector<std::optional<std::int64_t>> sessionsBefore;
    const WorkloadRecord stopped = *store.workload(id);
    for (const WorkloadTaskRecord& task : stopped.tasks)
        sessionsBefore.push_back(task.session);
    std::unique_ptr<WorkloadRun> resumed = WorkloadRun::resume(store, id);
    QCOMPARE(resumed->open(), id);
    QCOMPARE(resumed->progress().trials, std::int64_t{20});
    // The stored trials give the scheduler the state it had: the same bests, rounds per task.
    QCOMPARE(resumed->progress().endToEndMs, endToEndAtCancel);
    QCOMPARE(resumed->progress().rounds, std::uint64_t{5});
    QCOMPARE(resumed->run(), WorkloadStop::Budget);
    const WorkloadRecord record = *store.workload(id);
    QCOMPARE(record.status, std::string("completed"));
    std::int64_t total = 0;
    for (std::size_t i = 0; i < record.tasks.size(); ++i) {
        const WorkloadTaskRecord& task = record.tasks[i];
        if (sessionsBefore[i]) // a task keeps its session
            QCOMPARE(task.session, sessionsBefore[i]);
        bool duplicates = false;
        total += storedTrials(store, *task.session, &duplicates);
        QVERIFY2(!duplicates, task.name.c_str());
    }
    QCOMPARE(total, std::int64_t{60});
    QCOMPARE(store.sessions().size(), record.tasks.size()); // no session was started twice
    // A workload that has spent its budget is not resumed again.
    const QString message = errorOf([&] { WorkloadRun::resume(store, id)->open(); });
    QVERIFY2(message.contains("has spent its budget of 60 trials"), qPrintable(message));
}

// The gradient scheduler with forward=model asks each task's xgb models what its next trial may gain; the
// gains are stored with the tasks after every round, so the resumed workload's first choice is the one the
// uninterrupted workload made at that round.
void TestWorkloadRun::modelScheduledWorkloadResumesWithItsExpectedGains() {
    WorkloadPlan plan = replayWorkload(120, "gradient");
    plan.schedulerOptions = {{"forward", "model"}};
    for (WorkloadTaskPlan& task : plan.tasks)
        task.plan.strategy = "xgb";
    QTemporaryDir dir;
    Recorder whole;
    {
        RecordStore store(dir.filePath("whole.db").toStdString());
        std::unique_ptr<WorkloadRun> run = WorkloadRun::create(plan, store);
        run->addObserver(&whole);
        run->open();
        QCOMPARE(run->run(), WorkloadStop::Budget);
    }
    constexpr std::uint64_t kCancelAfter = 14;
    QVERIFY(whole.order.size() > kCancelAfter);
    const std::string path = dir.filePath("records.db").toStdString();
    std::int64_t id = 0;
    std::vector<std::optional<double>> gainsAtCancel;
    {
        RecordStore store(path);
        std::unique_ptr<WorkloadRun> run = WorkloadRun::create(plan, store);
        Recorder recorder(run.get(), kCancelAfter);
        run->addObserver(&recorder);
        id = run->open();
        QCOMPARE(run->run(), WorkloadStop::Cancelled);
        QCOMPARE(recorder.order,
                 std::vector<std::size_t>(whole.order.begin(), whole.order.begin() + kCancelAfter));
        gainsAtCancel = recorder.last.expectedGainPerTask;
    }
    RecordStore store(path);
    std::size_t withGain = 0;
    const WorkloadRecord stopped = *store.workload(id);
    for (const WorkloadTaskRecord& task : stopped.tasks)
        if (task.expectedGain) {
            QVERIFY2(std::isfinite(*task.expectedGain) && *task.expectedGain >= 0.0, task.name.c_str());
            ++withGain;
        }
    QVERIFY2(withGain > 0, "no task's xgb models gave an expected gain");
    std::unique_ptr<WorkloadRun> resumed = WorkloadRun::resume(store, id);
    Recorder after;
    resumed->addObserver(&after);
    QCOMPARE(resumed->open(), id);
    // The scheduler of the resumed workload sees the gains the interrupted one last saw.
    QCOMPARE(resumed->progress().expectedGainPerTask, gainsAtCancel);
    QCOMPARE(resumed->run(), WorkloadStop::Budget);
    QVERIFY(!after.order.empty());
    QCOMPARE(after.order.front(), whole.order[kCancelAfter]);
}

void TestWorkloadRun::taskThatCannotBeBuiltFailsAndTheOthersGoOn() {
    QTemporaryDir dir;
    RecordStore store(dir.filePath("records.db").toStdString());
    WorkloadPlan plan = replayWorkload(24);
    plan.tasks[1].plan.constraints = {"MWG < 0"}; // no config of the dataset is left
    std::unique_ptr<WorkloadRun> run = WorkloadRun::create(plan, store);
    Recorder recorder;
    run->addObserver(&recorder);
    const std::int64_t id = run->open();
    QCOMPARE(run->run(), WorkloadStop::Budget);
    const WorkloadRecord record = *store.workload(id);
    QCOMPARE(record.tasks[1].status, std::string("failed"));
    QVERIFY(!record.tasks[1].session.has_value());
    QVERIFY2(!record.tasks[1].error.empty(), record.tasks[1].error.c_str());
    QCOMPARE(QString::fromStdString(recorder.failed.at(1)), QString::fromStdString(record.tasks[1].error));
    QCOMPARE(storedTrials(store, *record.tasks[0].session) + storedTrials(store, *record.tasks[2].session),
             std::int64_t{24});
    // The end-to-end estimate counts the tasks that have a best; the failed one has none.
    QCOMPARE(recorder.last.tasksWithoutBest, std::size_t{1});
    QVERIFY(!recorder.last.oracleMs.has_value());
}

void TestWorkloadRun::taskOfAKernelMeasuredBeforeStartsWarm() {
    QTemporaryDir dir;
    RecordStore store(dir.filePath("records.db").toStdString());
    WorkloadPlan plan;
    plan.name = "two-sizes";
    plan.scheduler = "round_robin";
    plan.budget = 32;
    plan.tasks = {replayTask("small", "pnpoly_RTX_3090.json.gz", 1.0, "default"),
                  replayTask("large", "pnpoly_RTX_3090.json.gz", 1.0, "default")};
    plan.tasks[0].plan.constraints = {"block_size_x <= 256"};
    std::vector<std::string> notices;
    WorkloadRun::Hooks hooks;
    hooks.notice = [&](const std::string& line) { notices.push_back(line); };
    std::unique_ptr<WorkloadRun> run = WorkloadRun::create(plan, store, hooks);
    run->open();
    QCOMPARE(run->run(), WorkloadStop::Budget);
    bool warm = false;
    for (const std::string& line : notices)
        warm = warm || (line.find("task 2 (\"large\")") != std::string::npos &&
                        line.find("Warm start from 4 measured configs") != std::string::npos);
    QVERIFY2(warm, notices.empty() ? "no notice" : notices.back().c_str());
    const SessionRecord second = *store.session(*run->tasks()[1].record().session);
    QVERIFY2(second.settings.find("\"transfer\":true") != std::string::npos, second.settings.c_str());
}

void TestWorkloadRun::refusesWhatCannotRun() {
    QTemporaryDir dir;
    RecordStore store(dir.filePath("records.db").toStdString());
    WorkloadPlan plan = replayWorkload(20);
    plan.tasks[2].plan.strategy = "no_such_strategy";
    const QString message = errorOf([&] { WorkloadRun::create(plan, store); });
    QVERIFY2(message.contains("task 3 (\"conv\")"), qPrintable(message));
    QVERIFY2(message.contains("no_such_strategy"), qPrintable(message));
    QVERIFY(store.workloads().empty());
    const QString absent = errorOf([&] { WorkloadRun::resume(store, 42); });
    QVERIFY2(absent.contains("has no workload 42"), qPrintable(absent));
}

// The workload paused for 0.6 s between two rounds: its elapsed time (progress line, ETA) counts running
// time only, so the gap across the pause is that of an ordinary round.
void TestWorkloadRun::pausedTimeIsNotElapsed() {
    QTemporaryDir dir;
    RecordStore store(dir.filePath("records.db").toStdString());
    std::unique_ptr<WorkloadRun> run = WorkloadRun::create(replayWorkload(30, "round_robin"), store);
    struct PauseOnce : WorkloadObserver {
        WorkloadRun* run = nullptr;
        std::vector<double> elapsed;
        std::thread resumer;
        void roundFinished(const WorkloadProgress& p) override {
            elapsed.push_back(p.elapsedS);
            if (elapsed.size() == 5) {
                run->pause();
                resumer = std::thread([this] {
                    std::this_thread::sleep_for(std::chrono::milliseconds(600)); // the pause itself
                    run->resume();
                });
            }
        }
    } observer;
    observer.run = run.get();
    run->addObserver(&observer);
    run->open();
    QCOMPARE(run->run(), WorkloadStop::Budget);
    observer.resumer.join();
    QVERIFY(observer.elapsed.size() > 6);
    const double gap = observer.elapsed[5] - observer.elapsed[4];
    QVERIFY2(gap < 0.3, qPrintable(QString("elapsed %1 s across a pause of 0.6 s").arg(gap)));
    QVERIFY(observer.elapsed.back() >= observer.elapsed[5]);
}

QTEST_APPLESS_MAIN(TestWorkloadRun)
#include "TestWorkloadRun.moc"

// Measured elsewhere (the ranks of an MPI job), a workload deals a batch to every free slot, of several
// tasks at once, records results in the order they come back, and spends its budget exactly: no more trials
// than the budget, none measured twice, every task tuned.
void TestWorkloadRun::pooledWorkloadDealsToEverySlot() {
    for (const std::string scheduler : {"round_robin", "gradient"}) {
        QTemporaryDir dir;
        RecordStore store(dir.filePath("records.db").toStdString());
        WorkloadPlan plan = replayWorkload(90, scheduler);
        plan.tasks[0].plan.strategy = "default";
        std::unique_ptr<WorkloadRun> run = WorkloadRun::create(plan, store);
        Recorder recorder;
        run->addObserver(&recorder);
        LifoWorkloadPool pool(3);
        const std::int64_t id = run->open();
        QCOMPARE(run->run(pool), WorkloadStop::Budget);
        const WorkloadRecord record = *store.workload(id);
        QCOMPARE(record.status, std::string("completed"));
        bool duplicates = false;
        QCOMPARE(totalStoredTrials(store, record, duplicates), std::int64_t{90});
        QVERIFY(!duplicates);
        for (const WorkloadTaskRecord& task : record.tasks) {
            QVERIFY2(task.session && storedTrials(store, *task.session) > 0, task.name.c_str());
            QCOMPARE(task.status, std::string("done"));
            QCOMPARE(recorder.trials[static_cast<std::size_t>(task.position)],
                     storedTrials(store, *task.session));
        }
        QCOMPARE(pool.mostInFlight, std::size_t{3});
        QVERIFY(pool.mostTasksInFlight >= 2); // the warm-up deals every task before any result is back
        QCOMPARE(recorder.last.trials, std::int64_t{90});
    }
}

// A task whose device no slot measures on fails with the pool's sentence, records no session, and the
// others spend the budget.
void TestWorkloadRun::pooledWorkloadFailsATaskNoSlotMeasures() {
    QTemporaryDir dir;
    RecordStore store(dir.filePath("records.db").toStdString());
    WorkloadPlan plan = replayWorkload(40);
    plan.tasks[2] = replayTask("conv 2080", "convolution_2021_RTX_2080_Ti.json.gz", 1.0);
    const std::string device2080 =
        ReplayBackend(std::make_shared<const Dataset>(readDataset(plan.tasks[2].plan.dataset)))
            .deviceFingerprint();
    std::unique_ptr<WorkloadRun> run = WorkloadRun::create(plan, store);
    Recorder recorder;
    run->addObserver(&recorder);
    LifoWorkloadPool pool(2, device2080);
    const std::int64_t id = run->open();
    QCOMPARE(run->run(pool), WorkloadStop::Budget);
    const WorkloadRecord record = *store.workload(id);
    QCOMPARE(record.tasks[2].status, std::string("failed"));
    QVERIFY(!record.tasks[2].session.has_value());
    QVERIFY2(record.tasks[2].error.find("no slot measures on") != std::string::npos,
             record.tasks[2].error.c_str());
    QVERIFY(recorder.failed.count(2));
    bool duplicates = false;
    QCOMPARE(totalStoredTrials(store, record, duplicates), std::int64_t{40});
    QVERIFY(!duplicates);
}

// Cancelled with batches in flight, a pooled workload gives them up (nothing half-recorded) and resumes,
// pooled again, to its budget without measuring a recorded config twice.
void TestWorkloadRun::cancelledPooledWorkloadResumesWithoutMeasuringTwice() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.db").toStdString();
    std::int64_t id = 0;
    std::int64_t trialsAtCancel = 0;
    {
        RecordStore store(path);
        std::unique_ptr<WorkloadRun> run = WorkloadRun::create(replayWorkload(60), store);
        Recorder recorder(run.get(), 4);
        run->addObserver(&recorder);
        LifoWorkloadPool pool(3);
        id = run->open();
        QCOMPARE(run->run(pool), WorkloadStop::Cancelled);
        QCOMPARE(store.workload(id)->status, std::string("cancelled"));
        trialsAtCancel = recorder.last.trials;
        QCOMPARE(trialsAtCancel, std::int64_t{16}); // four batches of four came back
        bool duplicates = false;
        QCOMPARE(totalStoredTrials(store, *store.workload(id), duplicates), trialsAtCancel);
    }
    RecordStore store(path);
    std::unique_ptr<WorkloadRun> resumed = WorkloadRun::resume(store, id);
    QCOMPARE(resumed->open(), id);
    QCOMPARE(resumed->progress().trials, trialsAtCancel);
    LifoWorkloadPool pool(3);
    QCOMPARE(resumed->run(pool), WorkloadStop::Budget);
    const WorkloadRecord record = *store.workload(id);
    QCOMPARE(record.status, std::string("completed"));
    bool duplicates = false;
    QCOMPARE(totalStoredTrials(store, record, duplicates), std::int64_t{60});
    QVERIFY(!duplicates);
    QCOMPARE(store.sessions().size(), record.tasks.size());
}

// A pool that goes while a task is being sent to it (a rank lost then) ends the workload as cancelled, not
// the task as failed: the task records no session and the workload resumes, on a pool again, to its budget.
void TestWorkloadRun::poolGoneWhileSendingATaskCancelsTheWorkload() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.db").toStdString();
    std::int64_t id = 0;
    {
        RecordStore store(path);
        std::unique_ptr<WorkloadRun> run = WorkloadRun::create(replayWorkload(30), store);
        LifoWorkloadPool pool(2);
        pool.goneAtTask = 2;
        id = run->open();
        QCOMPARE(run->run(pool), WorkloadStop::Cancelled);
        const WorkloadRecord record = *store.workload(id);
        QCOMPARE(record.status, std::string("cancelled"));
        QVERIFY(!record.tasks[2].session.has_value());
        QVERIFY(record.tasks[2].status != "failed");
    }
    RecordStore store(path);
    std::unique_ptr<WorkloadRun> resumed = WorkloadRun::resume(store, id);
    resumed->open();
    LifoWorkloadPool pool(2);
    QCOMPARE(resumed->run(pool), WorkloadStop::Budget);
    bool duplicates = false;
    QCOMPARE(totalStoredTrials(store, *store.workload(id), duplicates), std::int64_t{30});
    QVERIFY(!duplicates);
}
