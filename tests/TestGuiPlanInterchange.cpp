// The CLI and the window start and resume each other's sessions the same way (core's SessionPlan and
// PreparedSession): every kind of plan (replay, replay narrowed by constraints, warm-started from a replay
// prior or from the records database, a cpu kernel) is started by `tunescope-cli tune`, interrupted by
// SIGINT and resumed in the window, and started in the window, cancelled and resumed by `tune --resume`.
// Each time the stored plan is the one the session began with, the finished trials stay as they were and
// nothing is measured twice; the window's plan of a kind is the CLI's.
#include "window/ErrorReporter.h"
#include "window/MainWindow.h"
#include "running/SessionRunner.h"
#include "window/TaskPanel.h"

#include "store/RecordStore.h"
#include "session/SessionPlan.h"
#include "space/Value.h"

#include "CliRun.h"

#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <nlohmann/json.hpp>
#include <set>

using namespace ts;
using namespace ts::gui;

namespace {

const QString kConv3090 = TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_3090.json.gz";
const QString kConv2080 = TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_2080_Ti.json.gz";

// The sessions of a kind, and how much of each is measured before the interruption.
struct Kind {
    QStringList tune;            // `tune` arguments without --db
    QStringList earlier;         // a session to run first (transfer learns from it), empty for none
    QString warmStartSource;     // what the warm-start line names, empty when there is no warm start
    QString constraintParameter; // every measured config has this parameter at most constraintMax
    double constraintMax = 0.0;
    int interruptAfter = 8; // trials committed before the interruption
};

std::vector<StoredTrial> trialsOf(const QString& db, std::int64_t id) {
    return RecordStore(db.toStdString(), DatabaseAccess::ReadOnly).trials(id);
}

SessionRecord recordOf(const QString& db, std::int64_t id) {
    return *RecordStore(db.toStdString(), DatabaseAccess::ReadOnly).session(id);
}

std::int64_t lastSession(const QString& db) {
    return RecordStore(db.toStdString(), DatabaseAccess::ReadOnly).sessions().back().id;
}

// The plan as stored, without what may differ between runs of the same plan (nothing today).
nlohmann::json storedPlan(const QString& db, std::int64_t id) {
    return SessionPlan::ofRecord(recordOf(db, id)).toJson();
}

// `tune ... --log-trials`, stopped by SIGINT once `after` trials are committed. Returns the exit status.
int interruptedTune(const QStringList& arguments, int after, QString& err) {
    QProcess cli;
    cli.setReadChannel(QProcess::StandardError);
    cli.start(TUNESCOPE_CLI, arguments + QStringList{"--log-trials"});
    if (!cli.waitForStarted(30000))
        return -1;
    int committed = 0;
    bool sent = false;
    QElapsedTimer timer;
    timer.start();
    while (cli.state() != QProcess::NotRunning && timer.elapsed() < 180000) {
        cli.waitForReadyRead(50);
        while (cli.canReadLine()) {
            const QString line = QString::fromUtf8(cli.readLine());
            err += line;
            committed += line.contains(" committed: ") ? 1 : 0;
        }
        if (!sent && committed >= after) {
            ::kill(static_cast<pid_t>(cli.processId()), SIGINT);
            sent = true;
        }
    }
    cli.waitForFinished(60000);
    err += QString::fromUtf8(cli.readAllStandardError());
    return cli.exitStatus() == QProcess::NormalExit ? cli.exitCode() : -1;
}

// What must hold after a resume: the plan unchanged, the trials of before unchanged and first, the budget
// used up, no config measured twice, constraints kept.
void checkResumed(const QString& db, std::int64_t id, const nlohmann::json& plan,
                  const std::vector<StoredTrial>& before, const Kind& kind) {
    QCOMPARE(QString::fromStdString(storedPlan(db, id).dump()), QString::fromStdString(plan.dump()));
    const SessionRecord record = recordOf(db, id);
    QCOMPARE(QString::fromStdString(record.status), QString("completed"));
    const std::vector<StoredTrial> after = trialsOf(db, id);
    QCOMPARE(static_cast<std::int64_t>(after.size()), record.budget);
    QVERIFY(after.size() > before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        QCOMPARE(after[i].number, before[i].number);
        QCOMPARE(after[i].index, before[i].index);
        QCOMPARE(after[i].config, before[i].config);
        QCOMPARE(after[i].status, before[i].status);
    }
    std::set<std::string> configs;
    for (const StoredTrial& t : after)
        configs.insert(t.config);
    QCOMPARE(configs.size(), after.size()); // nothing measured twice
    if (!kind.constraintParameter.isEmpty())
        for (const StoredTrial& t : after) {
            const auto config = nlohmann::json::parse(t.config);
            QVERIFY2(config.at(kind.constraintParameter.toStdString()).get<double>() <= kind.constraintMax,
                     t.config.c_str());
        }
}

} // namespace

Q_DECLARE_METATYPE(Kind)

class TestGuiPlanInterchange : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_dbCount = 0;

    QString freshDatabase() { return m_dir.filePath(QString("records-%1.db").arg(++m_dbCount)); }

    std::unique_ptr<MainWindow> window(const QString& db) {
        auto w = std::make_unique<MainWindow>();
        w->errors().setInteractive(false);
        w->setDatabasePath(db);
        w->resize(1400, 900);
        w->show();
        return w;
    }

    // The window set up for `plan` as a user does: its dataset opened or its kernel chosen, then the plan
    // given to the task panel (which keeps what it has no field for).
    static bool choose(MainWindow& w, const SessionPlan& plan) {
        TaskPanel* panel = w.taskPanel();
        if (plan.measuresKernel()) {
            QComboBox* kernels = panel->kernelBox();
            const int index =
                kernels->findData(TaskPanel::catalogKernelId(QString::fromStdString(plan.kernel.kernel)));
            if (index < 0)
                return false;
            kernels->setCurrentIndex(index);
            emit kernels->activated(index);
            panel->problemEdit()->setText(QString::fromStdString(plan.kernel.size));
        } else {
            QSignalSpy loaded(&w, &MainWindow::datasetLoaded);
            w.openDataset(QString::fromStdString(plan.dataset));
            if (loaded.isEmpty() && !loaded.wait(60000))
                return false;
        }
        panel->setTask(plan);
        return true;
    }

    void runEarlier(const Kind& kind, const QString& db) {
        if (kind.earlier.isEmpty())
            return;
        ts::test::CliResult r = ts::test::runCli(kind.earlier + QStringList{"--db", db});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("TunescopeTest");
        QCoreApplication::setApplicationName("TestGuiPlanInterchange");
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        qputenv("TUNESCOPE_WORKER", TUNESCOPE_WORKER);
        qputenv("TUNESCOPE_CACHE_DIR", m_dir.filePath("builds").toUtf8());
    }

    void cliAndWindowResumeEachOther_data() {
        QTest::addColumn<Kind>("kind");
        const QStringList xgb{"tune",     "--dataset", kConv3090, "--strategy", "xgb",
                              "--budget", "60",        "--seed",  "5"};
        QTest::newRow("replay") << Kind{xgb, {}, {}, {}, 0, 8};
        QTest::newRow("replay with constraints")
            << Kind{xgb + QStringList{"--constraint", "tile_size_x <= 2"}, {}, {}, "tile_size_x", 2, 8};
        QTest::newRow("replay with a prior") << Kind{
            xgb + QStringList{"--prior", kConv2080}, {}, "convolution_2021_RTX_2080_Ti.json.gz", {}, 0, 8};
        QTest::newRow("replay with transfer")
            << Kind{xgb + QStringList{"--transfer"},
                    {"tune", "--dataset", kConv2080, "--strategy", "random_sample", "--budget", "12"},
                    "session 1 (",
                    {},
                    0,
                    8};
        QTest::newRow("cpu kernel with constraints") << Kind{{"tune",
                                                              "--kernel",
                                                              "softmax",
                                                              "--size",
                                                              "rows=8,cols=64",
                                                              "--constraint",
                                                              "THREADS == 1",
                                                              "--constraint",
                                                              "UNROLL == 1",
                                                              "--strategy",
                                                              "random_sample",
                                                              "--budget",
                                                              "5",
                                                              "--batch-size",
                                                              "1",
                                                              "--seed",
                                                              "3",
                                                              "--repeat",
                                                              "3",
                                                              "--min-repeat-ms",
                                                              "1",
                                                              "--warmup-ms",
                                                              "1",
                                                              "--timeout",
                                                              "20"},
                                                             {},
                                                             {},
                                                             "THREADS",
                                                             1,
                                                             2};
    }

    // Started by the CLI, interrupted, resumed in the window.
    void cliAndWindowResumeEachOther() {
        QFETCH(Kind, kind);
        const QString db = freshDatabase();
        runEarlier(kind, db);
        if (QTest::currentTestFailed())
            return;
        QString err;
        QCOMPARE(interruptedTune(kind.tune + QStringList{"--db", db}, kind.interruptAfter, err),
                 128 + SIGINT);
        const std::int64_t id = lastSession(db);
        QCOMPARE(QString::fromStdString(recordOf(db, id).status), QString("cancelled"));
        const std::vector<StoredTrial> before = trialsOf(db, id);
        QVERIFY2(static_cast<int>(before.size()) >= kind.interruptAfter, qPrintable(err));
        QVERIFY(static_cast<std::int64_t>(before.size()) < recordOf(db, id).budget);
        const nlohmann::json plan = storedPlan(db, id);
        if (!kind.warmStartSource.isEmpty())
            QVERIFY2(err.contains("Warm start from ") && err.contains(kind.warmStartSource), qPrintable(err));

        auto w = window(db);
        QSignalSpy errors(&w->errors(), &ErrorReporter::reported);
        QSignalSpy warmStart(&w->runner(), &SessionRunner::warmStart);
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QVERIFY(w->resumeSession(id));
        QVERIFY(ended.wait(180000));
        QCOMPARE(ended.first().first().toString(), QString("completed"));
        QCOMPARE(errors.count(), 0);
        checkResumed(db, id, plan, before, kind);
        if (QTest::currentTestFailed())
            return;
        if (!kind.warmStartSource.isEmpty()) { // the window resumed the warm start too
            QCOMPARE(warmStart.count(), 1);
            const QString note = warmStart.first().first().toString();
            QVERIFY2(note.startsWith("Warm start from ") && note.contains(kind.warmStartSource),
                     qPrintable(note));
        }
        QCOMPARE(w->runData().trials().size(), trialsOf(db, id).size());

        // The other way round: the same plan started in the window, cancelled, resumed by the CLI. The builds
        // of the first half go: a kernel whose every config is cached measures its whole budget before the
        // cancel below can land.
        QVERIFY(QDir(m_dir.filePath("builds")).removeRecursively());
        const QString db2 = freshDatabase();
        runEarlier(kind, db2);
        auto w2 = window(db2);
        QSignalSpy errors2(&w2->errors(), &ErrorReporter::reported);
        QSignalSpy ended2(w2.get(), &MainWindow::sessionEnded);
        QVERIFY(choose(*w2, SessionPlan::ofRecord(recordOf(db, id))));
        QVERIFY(w2->startSession());
        QTRY_VERIFY_WITH_TIMEOUT(w2->runData().trials().size() >= std::size_t(kind.interruptAfter), 120000);
        w2->runner().cancel();
        QVERIFY(ended2.count() > 0 || ended2.wait(120000));
        QCOMPARE(ended2.first().first().toString(), QString("cancelled"));
        QCOMPARE(errors2.count(), 0);
        const std::int64_t id2 = lastSession(db2);
        const nlohmann::json plan2 = storedPlan(db2, id2);
        QCOMPARE(QString::fromStdString(plan2.dump()), QString::fromStdString(plan.dump())); // the CLI's plan
        const SessionRecord started = recordOf(db2, id2);
        QVERIFY(!started.sourceHash.empty());
        QVERIFY(started.deviceInfo != "{}");
        const std::vector<StoredTrial> before2 = trialsOf(db2, id2);
        ts::test::CliResult resumed =
            ts::test::runCli({"tune", "--resume", QString::number(id2), "--db", db2});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        if (!kind.warmStartSource.isEmpty())
            QVERIFY2(resumed.err.contains("Warm start from ") && resumed.err.contains(kind.warmStartSource),
                     qPrintable(resumed.err));
        checkResumed(db2, id2, plan2, before2, kind);
    }

    // A replay session started in the window is bound to its dataset file: resuming it after the file
    // changed is refused (the window and the CLI alike), and nothing is measured.
    void changedDatasetIsRefusedOnResume() {
        const QString db = freshDatabase();
        const QString copy = m_dir.filePath("pnpoly.json");
        QVERIFY(QFile::copy(TUNESCOPE_TEST_DATA "/kt_pnpoly.json", copy));
        QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
        SessionPlan plan;
        plan.dataset = copy.toStdString();
        plan.strategy = "random_sample";
        plan.budget = 20;
        plan.patience = 2; // ends well before the budget: a session to resume
        auto w = window(db);
        QSignalSpy errors(&w->errors(), &ErrorReporter::reported);
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QVERIFY(choose(*w, plan));
        QVERIFY(w->startSession());
        QVERIFY(ended.wait(60000));
        const std::int64_t id = lastSession(db);
        const SessionRecord record = recordOf(db, id);
        QVERIFY(!record.sourceHash.empty());
        QVERIFY(record.deviceInfo != "{}");
        const std::size_t measured = trialsOf(db, id).size();
        QVERIFY(static_cast<std::int64_t>(measured) < record.budget);
        { // the same measurements, another file
            QFile file(copy);
            QVERIFY(file.open(QIODevice::Append));
            file.write(" \n");
        }
        const QString refusal =
            QString("Session %1 cannot be resumed: %2 changed since the session started.").arg(id).arg(copy);
        ts::test::CliResult cli = ts::test::runCli({"tune", "--resume", QString::number(id), "--db", db});
        QCOMPARE(cli.exitCode, 1);
        QVERIFY2(cli.err.contains(refusal), qPrintable(cli.err));
        ended.clear();
        if (w->resumeSession(id)) // refused on the worker thread, where the session is rebuilt
            QVERIFY(ended.wait(60000));
        QVERIFY(errors.count() > 0);
        QVERIFY2(errors.last().at(1).toString().contains(refusal),
                 qPrintable(errors.last().at(1).toString()));
        QCOMPARE(trialsOf(db, id).size(), measured);
        QCOMPARE(recordOf(db, id).status, record.status);
    }
};

QTEST_MAIN(TestGuiPlanInterchange)
#include "TestGuiPlanInterchange.moc"
