// core's WorkloadRun on real replay datasets and a real records database: the budget is spent exactly over
// the tasks, every task gets rounds, a cancelled workload resumes with nothing measured twice, a task that
// cannot be built fails with its sentence while the others go on, and a task of a kernel measured before it
// starts warm from the earlier task's session.
#include "records/RecordStore.h"
#include "util/Error.h"
#include "workload/WorkloadRun.h"

#include "ErrorOf.h"

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cmath>
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
        ++rounds;
        if (m_run && m_cancelAfter > 0 && rounds >= m_cancelAfter)
            m_run->cancel();
    }
    std::map<std::size_t, std::int64_t> trials;
    std::map<std::size_t, std::string> failed;
    WorkloadProgress last;
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

} // namespace

class TestWorkloadRun : public QObject {
    Q_OBJECT

private slots:
    void spendsTheBudgetOverEveryTask();
    void cancelledWorkloadResumesWithoutMeasuringTwice();
    void taskThatCannotBeBuiltFailsAndTheOthersGoOn();
    void taskOfAKernelMeasuredBeforeStartsWarm();
    void refusesWhatCannotRun();
    void pausedTimeIsNotElapsed();
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
