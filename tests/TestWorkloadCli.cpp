// `tunescope-cli workload ...` and `tune --size A --size B` as a user runs them: real processes, a real
// records database, Ctrl-C (SIGINT) between rounds and SIGKILL at any moment, then `workload resume`
// measuring nothing twice; `workload show` against the database; bad input refused with one sentence.
#include "CliRun.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <csignal>

using ts::test::runCli;

namespace {

constexpr int kWaitMs = 180000;
const QString kDemo = TUNESCOPE_RESOURCES "/workloads/replay-demo.json";

QString queryText(const QString& db, const QString& sql) {
    sqlite3* handle = nullptr;
    QString result;
    if (sqlite3_open_v2(db.toUtf8().constData(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(handle, sql.toUtf8().constData(), -1, &statement, nullptr) == SQLITE_OK &&
            sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0) != nullptr)
            result = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
        sqlite3_finalize(statement);
    }
    sqlite3_close(handle);
    return result;
}

QJsonObject showJson(const QString& db, int id) {
    const ts::test::CliResult r = runCli({"workload", "show", QString::number(id), "--db", db, "--json"});
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

// Starts `workload tune` on the demo and waits for its first progress lines (stderr) up to `trials`.
bool startAndWaitForTrials(QProcess& process, const QStringList& arguments, int trials) {
    process.setReadChannel(QProcess::StandardError);
    process.start(TUNESCOPE_CLI, arguments);
    if (!process.waitForStarted(kWaitMs))
        return false;
    static const QRegularExpression progress(R"(\[(\d+)/\d+\] end-to-end)");
    QByteArray buffer;
    while (process.state() == QProcess::Running) {
        process.waitForReadyRead(kWaitMs);
        buffer += process.readAllStandardError();
        int seen = 0;
        for (auto it = progress.globalMatch(QString::fromUtf8(buffer)); it.hasNext();)
            seen = it.next().captured(1).toInt();
        if (seen >= trials)
            return true;
    }
    return false;
}

// Every session of the database measured each config once.
void checkNothingMeasuredTwice(const QString& db) {
    QCOMPARE(queryText(db, "SELECT count(*) FROM (SELECT session, config_index FROM trials GROUP BY session, "
                           "config_index HAVING count(*) > 1)"),
             QString("0"));
}

} // namespace

class TestWorkloadCli : public QObject {
    Q_OBJECT

private slots:
    void interruptedWorkloadResumesWhereItStopped();
    void killedWorkloadResumesWithNothingMeasuredTwice();
    void showMatchesTheDatabase();
    void severalSizesOfAKernelAreOneWorkload();
    void badInputIsOneSentence();
};

void TestWorkloadCli::interruptedWorkloadResumesWhereItStopped() {
    QTemporaryDir dir;
    const QString db = dir.filePath("records.db");
    QProcess process;
    QVERIFY(startAndWaitForTrials(
        process, {"workload", "tune", kDemo, "--budget", "300", "--db", db, "--seed", "3"}, 1));
    ::kill(static_cast<pid_t>(process.processId()), SIGINT);
    QVERIFY(process.waitForFinished(kWaitMs));
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitCode(), 128 + SIGINT);
    QVERIFY2(err.contains("Workload 1 was interrupted by SIGINT after ") &&
                 err.contains("`tunescope-cli workload resume 1 --db " + db + "` continues it."),
             qPrintable(err));
    const QJsonObject stopped = showJson(db, 1);
    QCOMPARE(stopped["status"].toString(), QString("cancelled"));
    const int before = stopped["trials"].toInt();
    QVERIFY2(before > 0 && before < 300, qPrintable(QString::number(before)));

    const ts::test::CliResult resumed = runCli({"workload", "resume", "1", "--db", db, "--json"});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    const QJsonObject done = QJsonDocument::fromJson(resumed.out.toUtf8()).object();
    QCOMPARE(done["status"].toString(), QString("completed"));
    QCOMPARE(done["trials"].toInt(), 300);
    QCOMPARE(queryText(db, "SELECT count(*) FROM sessions"), QString("5")); // one per task, kept
    checkNothingMeasuredTwice(db);
    const ts::test::CliResult again = runCli({"workload", "resume", "1", "--db", db});
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.err.contains("Workload 1 has spent its budget of 300 trials"), qPrintable(again.err));
}

void TestWorkloadCli::killedWorkloadResumesWithNothingMeasuredTwice() {
    QTemporaryDir dir;
    const QString db = dir.filePath("records.db");
    QProcess process;
    QVERIFY(startAndWaitForTrials(process, {"workload", "tune", kDemo, "--budget", "200", "--db", db}, 40));
    ::kill(static_cast<pid_t>(process.processId()), SIGKILL);
    QVERIFY(process.waitForFinished(kWaitMs));
    QCOMPARE(process.exitStatus(), QProcess::CrashExit);
    QCOMPARE(queryText(db, "PRAGMA integrity_check"), QString("ok"));
    const int before = queryText(db, "SELECT count(*) FROM trials").toInt();
    QVERIFY(before >= 40 && before < 200);

    const ts::test::CliResult resumed = runCli({"workload", "resume", "1", "--db", db, "--json"});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QCOMPARE(QJsonDocument::fromJson(resumed.out.toUtf8()).object()["trials"].toInt(), 200);
    QCOMPARE(queryText(db, "SELECT count(*) FROM trials"), QString("200"));
    QCOMPARE(queryText(db, "SELECT count(*) FROM sessions"), QString("5"));
    checkNothingMeasuredTwice(db);
}

void TestWorkloadCli::showMatchesTheDatabase() {
    QTemporaryDir dir;
    const QString db = dir.filePath("records.db");
    const ts::test::CliResult run =
        runCli({"workload", "tune", kDemo, "--budget", "60", "--db", db, "--strategy", "random_sample",
                "--scheduler", "proportional", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    // The table printed at the end is `workload show`'s.
    const QJsonObject shown = showJson(db, 1);
    QCOMPARE(QJsonDocument::fromJson(run.out.toUtf8()).object(), shown);
    QCOMPARE(shown["scheduler"].toString(), QString("proportional"));
    double endToEnd = 0;
    for (const QJsonValue& value : shown["tasks"].toArray()) {
        const QJsonObject task = value.toObject();
        const QString session = QString::number(task["session"].toInt());
        QCOMPARE(task["trials"].toInt(),
                 queryText(db, "SELECT count(*) FROM trials WHERE session = " + session).toInt());
        const double best =
            queryText(db, "SELECT min(objective) FROM trials WHERE status = 'ok' AND session = " + session)
                .toDouble();
        QCOMPARE(task["best_ms"].toDouble(), best);
        endToEnd += task["weight"].toDouble() * best;
    }
    QVERIFY(endToEnd > 0);
    QVERIFY(qAbs(shown["end_to_end_ms"].toDouble() - endToEnd) <= 1e-9 * endToEnd);
    double shares = 0;
    for (const QJsonValue& value : shown["tasks"].toArray())
        shares += value.toObject()["share"].toDouble();
    QVERIFY(qAbs(shares - 1.0) < 1e-9);
    const ts::test::CliResult list = runCli({"workload", "list", "--db", db});
    QVERIFY2(list.exitCode == 0 && list.out.contains("replay-demo") && list.out.contains("60/60"),
             qPrintable(list.out + list.err));
}

void TestWorkloadCli::severalSizesOfAKernelAreOneWorkload() {
    QTemporaryDir dir;
    const QString db = dir.filePath("records.db");
    const ts::test::CliResult run = runCli({"tune",
                                            "--kernel",
                                            "gemm",
                                            "--size",
                                            "16,32,48",
                                            "--size",
                                            "M=32,N=32,K=32",
                                            "--budget",
                                            "8",
                                            "--batch-size",
                                            "2",
                                            "--strategy",
                                            "random_sample",
                                            "--repeat",
                                            "2",
                                            "--min-repeat-ms",
                                            "0.1",
                                            "--warmup-ms",
                                            "0",
                                            "--db",
                                            db,
                                            "--cache-dir",
                                            dir.filePath("builds"),
                                            "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const QJsonObject shown = QJsonDocument::fromJson(run.out.toUtf8()).object();
    const QJsonArray tasks = shown["tasks"].toArray();
    QCOMPARE(tasks.size(), 2);
    QCOMPARE(tasks[0].toObject()["name"].toString(), QString("gemm M=16,N=32,K=48"));
    QCOMPARE(tasks[1].toObject()["name"].toString(), QString("gemm M=32,N=32,K=32"));
    QCOMPARE(shown["trials"].toInt(), 8);
    QCOMPARE(tasks[0].toObject()["trials"].toInt() + tasks[1].toObject()["trials"].toInt(), 8);
    QVERIFY(tasks[0].toObject()["trials"].toInt() > 0 && tasks[1].toObject()["trials"].toInt() > 0);
    QCOMPARE(queryText(db, "SELECT problem FROM sessions WHERE id = 1"),
             QString(R"({"M":16,"N":32,"K":48})"));
}

void TestWorkloadCli::badInputIsOneSentence() {
    QTemporaryDir dir;
    const QString db = dir.filePath("records.db");
    const ts::test::CliResult tooSmall = runCli({"workload", "tune", kDemo, "--budget", "3", "--db", db});
    QCOMPARE(tooSmall.exitCode, 1);
    QVERIFY2(tooSmall.err.contains("budget") && tooSmall.err.contains("3"), qPrintable(tooSmall.err));
    QVERIFY(!QFile::exists(db)); // refused before the database was created

    const ts::test::CliResult scheduler =
        runCli({"workload", "tune", kDemo, "--budget", "30", "--scheduler", "fastest", "--db", db});
    QCOMPARE(scheduler.exitCode, 1);
    QVERIFY2(scheduler.err.contains("fastest") && scheduler.err.contains("gradient"),
             qPrintable(scheduler.err));

    const ts::test::CliResult option =
        runCli({"workload", "tune", kDemo, "--budget", "30", "--scheduler-option", "alpha=7", "--db", db});
    QCOMPARE(option.exitCode, 1);
    QVERIFY2(option.err.contains("alpha") && option.err.contains("7"), qPrintable(option.err));

    const ts::test::CliResult absent = runCli({"workload", "show", "4", "--db", db});
    QCOMPARE(absent.exitCode, 1);
    QVERIFY2(absent.err.contains("does not exist"), qPrintable(absent.err));
    QVERIFY(runCli({"workload", "tune", kDemo, "--budget", "10", "--db", db, "--strategy", "random_sample"})
                .exitCode == 0);
    const ts::test::CliResult unknown = runCli({"workload", "show", "4", "--db", db});
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY2(unknown.err.contains("has no workload 4."), qPrintable(unknown.err));
    const ts::test::CliResult resumeUnknown = runCli({"workload", "--db", db, "resume", "9"});
    QCOMPARE(resumeUnknown.exitCode, 1);
    QVERIFY2(resumeUnknown.err.contains("has no workload 9."), qPrintable(resumeUnknown.err));
    const ts::test::CliResult dataset =
        runCli({"tune", "--dataset", TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz", "--size", "1",
                "--size", "2", "--db", db});
    QCOMPARE(dataset.exitCode, 1);
}

QTEST_APPLESS_MAIN(TestWorkloadCli)
#include "TestWorkloadCli.moc"
