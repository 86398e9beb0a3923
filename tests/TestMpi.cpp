#include "datasets/DatasetReader.h"
#include "distributed/MpiMeasurePool.h"
#include "distributed/MpiMeasureServer.h"
#include "store/RecordStore.h"
#include "util/Error.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

using namespace ts;

// tune --mpi and workload tune --mpi as real MPI jobs on this machine: mpirun (TUNESCOPE_MPIRUN) with three
// ranks, rank 0 running the session or workload and ranks 1 and 2 measuring, with the replay backend and
// with the cpu backend at a tiny size.
namespace {

const QString kPnpoly = TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz";
const QString kFaulty = TUNESCOPE_TEST_DATA "/kernels/faulty/kernel.json";
const QString kDemoWorkload = TUNESCOPE_RESOURCES "/workloads/replay-demo.json";

struct Job {
    int exitCode = -1;
    QString out;
    QString err;
};

QStringList mpirunPrefix(int ranks, const QStringList& command = {"tune"}) {
    return QStringList{"--allow-run-as-root", "--oversubscribe", "-np", QString::number(ranks),
                       TUNESCOPE_CLI} +
           command;
}

Job finished(QProcess& process, int timeoutMs = 240000) {
    if (!process.waitForFinished(timeoutMs))
        process.kill();
    process.waitForFinished(5000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

// `tunescope-cli tune ARGS --mpi` on `ranks` ranks (0: without MPI, one process).
Job tune(const QStringList& arguments, int ranks) {
    QProcess process;
    if (ranks > 0)
        process.start(TUNESCOPE_MPIRUN, mpirunPrefix(ranks) + arguments + QStringList{"--mpi"});
    else
        process.start(TUNESCOPE_CLI, QStringList{"tune"} + arguments);
    return finished(process);
}

// `tunescope-cli workload SUBCOMMAND ARGS --mpi` on `ranks` ranks.
Job workload(const QString& subcommand, const QStringList& arguments, int ranks) {
    QProcess process;
    process.start(TUNESCOPE_MPIRUN,
                  mpirunPrefix(ranks, {"workload", subcommand}) + arguments + QStringList{"--mpi"});
    return finished(process);
}

// The trials of every session of the database (a workload's tasks), by session.
std::map<std::int64_t, std::vector<StoredTrial>> trialsBySession(const QString& db) {
    RecordStore store(db.toStdString());
    std::map<std::int64_t, std::vector<StoredTrial>> trials;
    for (const SessionRecord& session : store.sessions())
        trials[session.id] = store.trials(session.id);
    return trials;
}

std::size_t trialCount(const std::map<std::int64_t, std::vector<StoredTrial>>& sessions) {
    std::size_t count = 0;
    for (const auto& [id, trials] : sessions)
        count += trials.size();
    return count;
}

std::vector<StoredTrial> trialsOf(const QString& db) {
    RecordStore store(db.toStdString());
    const std::vector<SessionRecord> sessions = store.sessions();
    if (sessions.size() != 1)
        qFatal("%s holds %zu sessions, not one", qPrintable(db), sessions.size());
    return store.trials(sessions.front().id);
}

std::string sessionStatus(const QString& db) {
    return RecordStore(db.toStdString()).sessions().front().status;
}

// What a run measured, as a set: (config, status, time) per trial.
std::set<std::tuple<std::string, std::string, double>> measured(const std::vector<StoredTrial>& trials) {
    std::set<std::tuple<std::string, std::string, double>> set;
    for (const StoredTrial& t : trials)
        set.emplace(t.config, t.status, t.status == "ok" ? t.objective : 0.0);
    return set;
}

void expectNoDuplicates(const std::vector<StoredTrial>& trials) {
    std::set<std::uint64_t> indices;
    for (const StoredTrial& t : trials)
        QVERIFY2(indices.insert(t.index).second,
                 qPrintable(QString("config %1 measured twice").arg(t.index)));
}

// The ranks that measured the trials, from their "mpi_rank" metric (every trial has one).
std::set<int> measuringRanks(const std::vector<StoredTrial>& trials) {
    std::set<int> ranks;
    for (const StoredTrial& t : trials) {
        const auto it = t.metrics.find("mpi_rank");
        if (it == t.metrics.end())
            return {};
        ranks.insert(static_cast<int>(it->second));
    }
    return ranks;
}

// The pid of rank `rank` of the running job whose command line holds `marker`, from /proc; 0 when not there.
pid_t rankPid(int rank, const std::string& marker) {
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream cmdline(entry.path() / "cmdline"), environ(entry.path() / "environ");
        std::stringstream command, environment;
        command << cmdline.rdbuf();
        environment << environ.rdbuf();
        const std::string env = '\0' + environment.str();
        if (command.str().find(marker) != std::string::npos &&
            command.str().find("tunescope-cli") != std::string::npos &&
            env.find(std::string(1, '\0') + "OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + '\0') !=
                std::string::npos)
            return static_cast<pid_t>(std::stol(name));
    }
    return 0;
}

// Kills measuring rank 2 of the running job that writes `db` and waits for the job's end into `killed`: a
// non-zero exit, with the sentence that names the lost rank.
void killRankTwo(QProcess& process, const QString& db, Job& killed) {
    const pid_t victim = rankPid(2, db.toStdString());
    QVERIFY(victim > 0);
    QCOMPARE(::kill(victim, SIGKILL), 0);
    killed = finished(process);
    QVERIFY(killed.exitCode != 0);
    QVERIFY2(killed.err.contains("MPI rank 2 (host") && killed.err.contains("was lost"),
             qPrintable(killed.err));
}

// Quick, real measurement of the fault-injection kernel on the cpu backend: a hang costs one second.
const QStringList kQuickCpu{"--timeout", "1",           "--repeat", "3",         "--min-repeat-ms",
                            "1",         "--warmup-ms", "1",        "--no-flush"};

} // namespace

class TestMpi : public QObject {
    Q_OBJECT

private slots:
    // A session is measured on one device model: a rank on another is refused in one sentence naming it.
    void ranksOnAnotherDeviceAreRefused() {
        const std::vector<MpiMeasurePool::Rank> same{{1, "a", 11, "NVIDIA H200", ""},
                                                     {2, "b", 12, "NVIDIA H200", ""}};
        MpiMeasurePool::checkSameDevice("NVIDIA H200", same);
        std::vector<MpiMeasurePool::Rank> mixed = same;
        mixed[1].device = "NVIDIA A100";
        try {
            MpiMeasurePool::checkSameDevice("NVIDIA H200", mixed);
            QFAIL("a rank on an A100 was accepted for an H200 session");
        } catch (const Error& e) {
            const QString text = e.what();
            QVERIFY2(text.contains("MPI rank 2 (host b)") && text.contains("NVIDIA A100"), e.what());
        }
    }

    // One rank per GPU of a node: Slurm's binding is kept, several visible GPUs are shared out by the rank's
    // place on its node, and without the variable the node's GPUs are numbered from 0.
    void eachRankTakesItsOwnGpu() {
        QCOMPARE(MpiMeasureServer::gpuForRank("3", 1), std::string("3"));
        QCOMPARE(MpiMeasureServer::gpuForRank("4,5,6,7", 2), std::string("6"));
        QCOMPARE(MpiMeasureServer::gpuForRank(nullptr, 2), std::string("2"));
        QCOMPARE(MpiMeasureServer::gpuForRank("", 0), std::string("0"));
    }

    // Random search proposes the same configs whatever the order results come back in, so an MPI run and a
    // single-process run of one seed measure the same set: same count, configs, statuses and times, no config
    // twice, both measuring ranks used, and the progress line on stderr.
    void replayJobMeasuresWhatOneProcessMeasures() {
        QTemporaryDir dir;
        const QString mpiDb = dir.filePath("mpi.db"), oneDb = dir.filePath("one.db");
        const QStringList plan{"--dataset", kPnpoly,    "--strategy", "random_sample", "--seed",
                               "7",         "--budget", "60",         "--batch-size",  "4"};
        const Job mpi = tune(plan + QStringList{"--db", mpiDb, "--replay-delay-ms", "5"}, 3);
        QVERIFY2(mpi.exitCode == 0, qPrintable(mpi.err));
        const Job one = tune(plan + QStringList{"--db", oneDb}, 0);
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        QVERIFY2(mpi.err.contains("Measuring on 2 MPI ranks"), qPrintable(mpi.err));
        QVERIFY2(mpi.err.contains("[60/60]"), qPrintable(mpi.err));

        const std::vector<StoredTrial> mpiTrials = trialsOf(mpiDb), oneTrials = trialsOf(oneDb);
        QCOMPARE(mpiTrials.size(), std::size_t{60});
        expectNoDuplicates(mpiTrials);
        QVERIFY(measured(mpiTrials) == measured(oneTrials));
        QCOMPARE(measuringRanks(mpiTrials), (std::set<int>{1, 2}));
        QVERIFY2(mpiTrials.front().log.find("measured by MPI rank") != std::string::npos,
                 mpiTrials.front().log.c_str());
        QCOMPARE(sessionStatus(mpiDb), std::string("completed"));
    }

    // The default strategy across ranks: it spends its budget on unique configs, and a target stops it.
    void defaultStrategyKeepsItsBudgetAndStopConditions() {
        QTemporaryDir dir;
        const Job budget = tune({"--dataset", kPnpoly, "--budget", "48", "--db", dir.filePath("budget.db"),
                                 "--replay-delay-ms", "5", "--json"},
                                3);
        QVERIFY2(budget.exitCode == 0, qPrintable(budget.err));
        const std::vector<StoredTrial> trials = trialsOf(dir.filePath("budget.db"));
        QCOMPARE(trials.size(), std::size_t{48});
        expectNoDuplicates(trials);
        QVERIFY(budget.out.contains("\"stop_reason\": \"budget reached\""));

        // A target of a time in the dataset's upper half: met long before the budget of 400.
        const Dataset dataset = readDataset(kPnpoly.toStdString());
        std::vector<double> times;
        for (const auto& [index, m] : dataset.entries)
            if (m.status == MeasureStatus::Ok)
                times.push_back(m.objective);
        std::sort(times.begin(), times.end());
        const QString target = QString::number(times[times.size() / 2], 'g', 17);
        const Job early = tune({"--dataset", kPnpoly, "--budget", "400", "--db", dir.filePath("target.db"),
                                "--target", target, "--json"},
                               3);
        QVERIFY2(early.exitCode == 0, qPrintable(early.err));
        QVERIFY2(early.out.contains("\"stop_reason\": \"target objective reached\""), qPrintable(early.out));
        QVERIFY(trialsOf(dir.filePath("target.db")).size() < 400);
    }

    // The cpu backend on both measuring ranks, over the fault-injection kernel: a crashing, hanging, wrong
    // or non-compiling config is recorded with its status by the rank that met it, and the job goes on to
    // measure all 18 configs.
    void crashingKernelIsRecordedAndTheJobGoesOn() {
        QTemporaryDir dir;
        const QString db = dir.filePath("cpu.db");
        const Job job =
            tune(QStringList{"--kernel-spec", kFaulty, "--strategy", "brute_force", "--batch-size", "3",
                             "--db", db, "--cache-dir", dir.filePath("cache")} +
                     kQuickCpu,
                 3);
        QVERIFY2(job.exitCode == 0, qPrintable(job.err));
        const std::vector<StoredTrial> trials = trialsOf(db);
        QCOMPARE(trials.size(), std::size_t{18});
        expectNoDuplicates(trials);
        QCOMPARE(measuringRanks(trials), (std::set<int>{1, 2}));
        const std::map<std::string, std::string> expected{{"ok", "ok"},
                                                          {"print", "ok"},
                                                          {"compile_error", "compile_failed"},
                                                          {"segfault", "runtime_failed"},
                                                          {"hang", "timeout"},
                                                          {"wrong", "wrong_result"}};
        for (const StoredTrial& t : trials) {
            const std::string mode = nlohmann::json::parse(t.config).at("MODE").get<std::string>();
            QVERIFY2(t.status == expected.at(mode),
                     qPrintable(QString("%1: %2").arg(mode.c_str(), t.status.c_str())));
        }
        QCOMPARE(sessionStatus(db), std::string("completed"));
    }

    // A measuring rank killed mid-run ends the MPI job (OpenMPI 4.1 has no recovery): rank 0 names the lost
    // rank, every finished trial is committed, and `tune --resume --mpi` measures the rest of the budget
    // without measuring a recorded config again.
    void killedRankLeavesRecordsThatResume() {
        QTemporaryDir dir;
        const QString db = dir.filePath("killed.db");
        QProcess process;
        process.start(TUNESCOPE_MPIRUN,
                      mpirunPrefix(3) + QStringList{"--dataset", kPnpoly, "--budget", "200", "--batch-size",
                                                    "4", "--db", db, "--replay-delay-ms", "50", "--mpi"});
        QVERIFY(process.waitForStarted());
        // Kill rank 2 once 16 trials are committed (each trial is committed when it is told of).
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(db) && RecordStore(db.toStdString()).sessions().size() == 1 &&
                                     trialsOf(db).size() >= 16,
                                 120000);
        Job killed;
        killRankTwo(process, db, killed);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(killed.err.contains("--resume"), qPrintable(killed.err));
        const std::vector<StoredTrial> before = trialsOf(db);
        QVERIFY(before.size() >= 16 && before.size() < 200);
        expectNoDuplicates(before);
        QCOMPARE(sessionStatus(db), std::string("cancelled"));

        const std::int64_t session = RecordStore(db.toStdString()).sessions().front().id;
        const Job resumed = tune({"--resume", QString::number(session), "--db", db}, 3);
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        const std::vector<StoredTrial> after = trialsOf(db);
        QCOMPARE(after.size(), std::size_t{200});
        expectNoDuplicates(after);
        for (std::size_t i = 0; i < before.size(); ++i) {
            QCOMPARE(after[i].index, before[i].index);
            QCOMPARE(after[i].finishedAt, before[i].finishedAt); // recorded once, never measured again
        }
        QCOMPARE(sessionStatus(db), std::string("completed"));
    }

    // What cannot run is one sentence and a non-zero exit, with nothing recorded and no rank left waiting:
    // a session or a workload with no measuring rank.
    void jobsThatCannotRunSaySo() {
        QTemporaryDir dir;
        const Job alone = tune({"--dataset", kPnpoly, "--db", dir.filePath("alone.db")}, 1);
        QVERIFY(alone.exitCode != 0);
        QVERIFY2(alone.err.contains("at least two ranks"), qPrintable(alone.err));
        QVERIFY(!QFile::exists(dir.filePath("alone.db")) ||
                RecordStore(dir.filePath("alone.db").toStdString()).sessions().empty());

        const Job lone = workload("tune", {kDemoWorkload, "--budget", "10", "--db", dir.filePath("w.db")}, 1);
        QVERIFY(lone.exitCode != 0);
        QVERIFY2(lone.err.contains("at least two ranks"), qPrintable(lone.err));
    }

    // A workload across ranks: the tasks (replayed on three GPU models, each task bound to the ranks that
    // measure on its model) are dealt to both ranks at once, the budget is spent exactly, every task is
    // tuned and no config of a task is measured twice.
    void workloadJobSpendsItsBudgetOverEveryTask() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        const Job job = workload("tune",
                                 {kDemoWorkload, "--budget", "60", "--batch-size", "4", "--db", db,
                                  "--replay-delay-ms", "2", "--json"},
                                 3);
        QVERIFY2(job.exitCode == 0, qPrintable(job.err));
        QVERIFY2(job.err.contains("Measuring on 2 MPI ranks"), qPrintable(job.err));
        QVERIFY2(job.err.contains("[60/60]"), qPrintable(job.err));
        RecordStore store(db.toStdString());
        const std::vector<WorkloadRecord> workloads = store.workloads();
        QCOMPARE(workloads.size(), std::size_t{1});
        QCOMPARE(workloads.front().status, std::string("completed"));
        const auto sessions = trialsBySession(db);
        QCOMPARE(sessions.size(), workloads.front().tasks.size()); // every task was tuned
        QCOMPARE(trialCount(sessions), std::size_t{60});
        std::set<int> ranks;
        for (const auto& [id, trials] : sessions) {
            QVERIFY2(!trials.empty(), qPrintable(QString("session %1 has no trial").arg(id)));
            expectNoDuplicates(trials);
            const std::set<int> measuredBy = measuringRanks(trials);
            QVERIFY(!measuredBy.empty()); // every trial carries the rank that measured it
            ranks.insert(measuredBy.begin(), measuredBy.end());
        }
        QCOMPARE(ranks, (std::set<int>{1, 2}));
    }

    // Several sizes of a kernel make a workload, over MPI as on one machine: the cpu backend on both ranks
    // measures both tasks, a crashing or hanging config is recorded with its status, and each task ends
    // when its 18 configs are measured.
    void severalSizesRunAsAWorkloadAcrossRanks() {
        QTemporaryDir dir;
        const QString db = dir.filePath("sizes.db");
        const Job job = tune(QStringList{"--kernel-spec", kFaulty, "--size", "N=1024", "--size", "N=2048",
                                         "--strategy", "brute_force", "--batch-size", "3", "--budget", "36",
                                         "--db", db, "--cache-dir", dir.filePath("cache")} +
                                 kQuickCpu,
                             3);
        QVERIFY2(job.exitCode == 0, qPrintable(job.err));
        const auto sessions = trialsBySession(db);
        QCOMPARE(sessions.size(), std::size_t{2});
        for (const auto& [id, trials] : sessions) {
            QCOMPARE(trials.size(), std::size_t{18});
            expectNoDuplicates(trials);
            std::map<std::string, int> statuses;
            for (const StoredTrial& t : trials)
                ++statuses[t.status];
            QCOMPARE(statuses["timeout"], 3);        // MODE=hang
            QCOMPARE(statuses["runtime_failed"], 3); // MODE=segfault
            QCOMPARE(statuses["ok"], 6);
        }
    }

    // A measuring rank killed mid-workload ends the job: rank 0 names the lost rank and the command that
    // resumes, every finished trial is committed, and `workload resume --mpi` spends the rest of the budget
    // without measuring a recorded config again. The scheduler asks the tasks' models (gradient,
    // forward=model): their expected gains are stored with the tasks and the resume goes on with them.
    void killedRankLeavesAWorkloadThatResumes() {
        QTemporaryDir dir;
        const QString db = dir.filePath("killed.db");
        QProcess process;
        process.start(TUNESCOPE_MPIRUN,
                      mpirunPrefix(3, {"workload", "tune"}) +
                          QStringList{kDemoWorkload, "--budget", "120", "--batch-size", "4", "--scheduler",
                                      "gradient", "--scheduler-option", "forward=model", "--db", db,
                                      "--replay-delay-ms", "50", "--mpi"});
        QVERIFY(process.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(db) && trialCount(trialsBySession(db)) >= 16, 120000);
        Job killed;
        killRankTwo(process, db, killed);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(killed.err.contains("workload resume 1"), qPrintable(killed.err));
        const auto before = trialsBySession(db);
        QVERIFY(trialCount(before) >= 16 && trialCount(before) < 120);
        QCOMPARE(RecordStore(db.toStdString()).workloads().front().status, std::string("cancelled"));

        const Job resumed = workload("resume", {"1", "--db", db}, 3);
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        const auto after = trialsBySession(db);
        QCOMPARE(trialCount(after), std::size_t{120});
        for (const auto& [id, trials] : after) {
            expectNoDuplicates(trials);
            if (!before.count(id))
                continue;
            const std::vector<StoredTrial>& earlier = before.at(id);
            for (std::size_t i = 0; i < earlier.size(); ++i) {
                QCOMPARE(trials[i].index, earlier[i].index);
                QCOMPARE(trials[i].finishedAt, earlier[i].finishedAt); // recorded once, never measured again
            }
        }
        const WorkloadRecord done = RecordStore(db.toStdString()).workloads().front();
        QCOMPARE(done.status, std::string("completed"));
        QVERIFY2(done.options.find("\"forward\":\"model\"") != std::string::npos, done.options.c_str());
        QVERIFY2(std::any_of(done.tasks.begin(), done.tasks.end(),
                             [](const WorkloadTaskRecord& task) { return task.expectedGain.has_value(); }),
                 "no task's models gave an expected gain");
    }
};

QTEST_GUILESS_MAIN(TestMpi)
#include "TestMpi.moc"
