// Never lose a measurement: a tuning CLI killed with SIGKILL at random moments keeps every trial it reported
// as finished, leaves a sound database, and resumes to its budget without measuring anything twice; readers
// browse the file while the CLI writes to it.
#include "SqlExec.h"
#include "store/RecordStore.h"
#include "store/SessionLock.h"
#include "util/Error.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <csignal>
#include <random>
#include <set>

using namespace ts;

namespace {

const QString kPnpoly = TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz";
constexpr int kBudget = 3000;
constexpr int kWaitMs = 60000;

// A read-only connection of our own, as a separate tool would open the file after the crash.
QString queryText(const QString& db, const char* sql) {
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.toUtf8().constData(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
        qFatal("cannot open %s", qPrintable(db));
    sqlite3_stmt* statement = nullptr;
    QString result;
    if (sqlite3_prepare_v2(handle, sql, -1, &statement, nullptr) != SQLITE_OK)
        qFatal("cannot prepare %s: %s", sql, sqlite3_errmsg(handle));
    if (sqlite3_step(statement) == SQLITE_ROW)
        result = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
    sqlite3_finalize(statement);
    sqlite3_close(handle);
    return result;
}

// The "trial N committed" lines a --log-trials CLI has printed so far; `buffer` keeps a partial last line.
int readCommitted(QProcess& process, QByteArray& buffer, int highest) {
    static const QRegularExpression line(R"(^trial (\d+) committed: )");
    buffer += process.readAllStandardError();
    qsizetype newline = 0;
    while ((newline = buffer.indexOf('\n')) >= 0) {
        const QString text = QString::fromUtf8(buffer.left(newline));
        buffer.remove(0, newline + 1);
        const QRegularExpressionMatch match = line.match(text);
        if (match.hasMatch())
            highest = std::max(highest, match.captured(1).toInt());
    }
    return highest;
}

QStringList tuneArguments(const QString& db) {
    return {"tune",
            "--dataset",
            kPnpoly,
            "--strategy",
            "random_sample",
            "--budget",
            QString::number(kBudget),
            "--seed",
            "11",
            "--batch-size",
            "4",
            "--db",
            db,
            "--log-trials"};
}

// Starts a fresh tuning CLI on `db` and returns once it has reported `trials` trials committed (or ended).
int startTuning(QProcess& process, const QString& db, QByteArray& buffer, int trials) {
    process.setReadChannel(QProcess::StandardError); // where the trial lines go
    process.start(TUNESCOPE_CLI, tuneArguments(db));
    int reported = 0;
    if (!process.waitForStarted(kWaitMs))
        return reported;
    while (reported < trials && process.state() == QProcess::Running) {
        process.waitForReadyRead(kWaitMs);
        reported = readCommitted(process, buffer, reported);
    }
    return reported;
}

} // namespace

class TestCrashSafety : public QObject {
    Q_OBJECT

private slots:
    void replaySessionSurvivesSigkillAndResumes();
    void cpuSessionSurvivesSigkillAndResumes();
    void readersBrowseWhileTheCliTunes();
    void oneProcessRunsASessionAtATime();
};

void TestCrashSafety::replaySessionSurvivesSigkillAndResumes() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    const quint32 seed = QRandomGenerator::global()->generate();
    qInfo("kill moments drawn with seed %u", seed);
    std::mt19937 rng(seed);

    int kills = 0;
    int runs = 0;
    int reportedBefore = 0; // trials reported committed by all killed runs so far
    while (kills < 12) {
        QVERIFY2(++runs < 40, "the session kept finishing before it could be killed");
        QProcess process;
        const QStringList arguments =
            runs == 1 ? tuneArguments(db) : QStringList{"tune", "--resume", "1", "--db", db, "--log-trials"};
        process.setReadChannel(QProcess::StandardError); // where the trial lines go
        process.start(TUNESCOPE_CLI, arguments);
        QVERIFY(process.waitForStarted(kWaitMs));
        // Every fourth resumed run dies before it has measured anything (opening, preloading).
        const bool early = runs > 1 && rng() % 4 == 0;
        const int target = reportedBefore + 1 + static_cast<int>(rng() % 200);
        QByteArray buffer;
        int reported = reportedBefore;
        while (!early && reported < target && process.state() == QProcess::Running) {
            process.waitForReadyRead(kWaitMs);
            reported = readCommitted(process, buffer, reported);
        }
        if (process.state() != QProcess::Running) {
            if (process.state() != QProcess::NotRunning)
                process.waitForFinished(kWaitMs);
            QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
            QVERIFY2(false, "the session reached its budget before the kill; raise kBudget");
        }
        ::kill(static_cast<pid_t>(process.processId()), SIGKILL);
        if (process.state() != QProcess::NotRunning)
            QVERIFY(process.waitForFinished(kWaitMs));
        QVERIFY2(process.exitStatus() == QProcess::CrashExit,
                 qPrintable(QString("run %1 (early %2) ended by itself after %3 reported trials: %4")
                                .arg(runs)
                                .arg(early)
                                .arg(reported)
                                .arg(QString::fromUtf8(buffer + process.readAllStandardError()).right(300))));
        reported = readCommitted(process, buffer, reported);
        ++kills;

        QCOMPARE(queryText(db, "PRAGMA integrity_check"), QString("ok"));
        const int stored = queryText(db, "SELECT count(*) FROM trials WHERE session = 1").toInt();
        QVERIFY2(
            stored >= reported,
            qPrintable(
                QString("reported %1 committed trials, the database holds %2").arg(reported).arg(stored)));
        // Trials are numbered without gaps and no config was measured twice.
        QCOMPARE(queryText(db, "SELECT max(number) + 1 FROM trials WHERE session = 1").toInt(), stored);
        QCOMPARE(queryText(db, "SELECT count(DISTINCT config_index) FROM trials WHERE session = 1").toInt(),
                 stored);
        QVERIFY(stored < kBudget);
        reportedBefore = stored;
    }

    QProcess finish;
    finish.start(TUNESCOPE_CLI, {"tune", "--resume", "1", "--db", db, "--json"});
    QVERIFY(finish.waitForFinished(kWaitMs));
    QVERIFY2(finish.exitCode() == 0, finish.readAllStandardError().constData());
    QCOMPARE(queryText(db, "PRAGMA integrity_check"), QString("ok"));
    QCOMPARE(queryText(db, "SELECT count(*) FROM trials WHERE session = 1").toInt(), kBudget);
    QCOMPARE(queryText(db, "SELECT count(DISTINCT config_index) FROM trials WHERE session = 1").toInt(),
             kBudget);
    QCOMPARE(queryText(db, "SELECT count(DISTINCT number) FROM trials WHERE session = 1").toInt(), kBudget);
    QCOMPARE(queryText(db, "SELECT count(*) FROM sessions"), QString("1"));
    QCOMPARE(queryText(db, "SELECT status FROM sessions WHERE id = 1"), QString("completed"));
    qInfo("%d kills over %d runs", kills, runs);

    // A finished session has nothing left to resume: one sentence, non-zero exit.
    QProcess again;
    again.start(TUNESCOPE_CLI, {"tune", "--resume", "1", "--db", db});
    QVERIFY(again.waitForFinished(kWaitMs));
    QCOMPARE(again.exitCode(), 1);
    const QString message = QString::fromUtf8(again.readAllStandardError()).trimmed();
    QVERIFY2(message.contains("already used its budget") && !message.contains('\n'), qPrintable(message));
}

// The CPU backend compiles each config (seconds) and measures it for real: kills land in start-up, in the
// compiler, in measuring and between trials. A small budget keeps the suite fast; builds are cached in a
// folder of the test's own, so a resumed run reuses what a killed one finished compiling.
void TestCrashSafety::cpuSessionSurvivesSigkillAndResumes() {
    constexpr int kCpuBudget = 4;
    constexpr int kCpuKills = 10;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("TUNESCOPE_CACHE_DIR", dir.filePath("builds"));
    const quint32 seed = QRandomGenerator::global()->generate();
    qInfo("kill moments drawn with seed %u", seed);
    std::mt19937 rng(seed);
    const QString count = QString("SELECT count(*) FROM trials WHERE session = 1");

    int stored = 0;
    int betweenTrials = 0;
    for (int run = 1; run <= kCpuKills; ++run) {
        QProcess process;
        process.setProcessEnvironment(environment);
        process.setReadChannel(QProcess::StandardError);
        process.start(TUNESCOPE_CLI, run == 1
                                         ? QStringList{"tune", "--kernel", "gemm", "--backend", "cpu",
                                                       "--size", "16,16,16", "--strategy", "random_sample",
                                                       "--budget", QString::number(kCpuBudget), "--seed", "5",
                                                       "--batch-size", "2", "--db", db, "--log-trials"}
                                         : QStringList{"tune", "--resume", "1", "--db", db, "--log-trials"});
        QVERIFY(process.waitForStarted(kWaitMs));
        // Either just after the next committed trial, or at a random moment early in the run (start-up,
        // preloading, the first compile); never so late that the budget could run out.
        const bool afterTrial = run == 1 || (stored < kCpuBudget - 2 && rng() % 2 == 0);
        QByteArray buffer;
        int reported = stored;
        if (afterTrial) {
            while (reported == stored && process.state() == QProcess::Running) {
                process.waitForReadyRead(kWaitMs);
                reported = readCommitted(process, buffer, reported);
            }
            ++betweenTrials;
        } else {
            process.waitForFinished(static_cast<int>(rng() % 600));
        }
        QVERIFY2(process.state() == QProcess::Running,
                 qPrintable("the CPU session ended before the kill: " +
                            QString::fromUtf8(buffer + process.readAllStandardError()).right(400)));
        ::kill(static_cast<pid_t>(process.processId()), SIGKILL);
        if (process.state() != QProcess::NotRunning)
            QVERIFY(process.waitForFinished(kWaitMs));
        QCOMPARE(process.exitStatus(), QProcess::CrashExit);
        reported = readCommitted(process, buffer, reported);

        QCOMPARE(queryText(db, "PRAGMA integrity_check"), QString("ok"));
        stored = queryText(db, count.toUtf8().constData()).toInt();
        QVERIFY2(stored >= reported, qPrintable(QString("reported %1, stored %2").arg(reported).arg(stored)));
        QCOMPARE(queryText(db, "SELECT count(DISTINCT config_index) FROM trials WHERE session = 1").toInt(),
                 stored);
        QVERIFY(stored < kCpuBudget);
    }

    // A session measured on another machine is not continued here: its times would not compare.
    const QString device = queryText(db, "SELECT device FROM sessions WHERE id = 1");
    ts::test::execSql(db, "UPDATE sessions SET device = 'cpu: another machine' WHERE id = 1");
    QProcess elsewhere;
    elsewhere.setProcessEnvironment(environment);
    elsewhere.start(TUNESCOPE_CLI, {"tune", "--resume", "1", "--db", db});
    QVERIFY(elsewhere.waitForFinished(kWaitMs));
    const QString refusal = QString::fromUtf8(elsewhere.readAllStandardError());
    QCOMPARE(elsewhere.exitCode(), 1);
    QVERIFY2(refusal.contains("Session 1 was measured on cpu: another machine, not on this machine's ") &&
                 refusal.count('\n') == 1,
             qPrintable(refusal));
    QCOMPARE(queryText(db, count.toUtf8().constData()).toInt(), stored);
    ts::test::execSql(db, "UPDATE sessions SET device = '" + device.toStdString() + "' WHERE id = 1");

    QProcess finish;
    finish.setProcessEnvironment(environment);
    finish.start(TUNESCOPE_CLI, {"tune", "--resume", "1", "--db", db});
    QVERIFY(finish.waitForFinished(kWaitMs * 3));
    QVERIFY2(finish.exitCode() == 0, finish.readAllStandardError().constData());
    QCOMPARE(queryText(db, "PRAGMA integrity_check"), QString("ok"));
    QCOMPARE(queryText(db, count.toUtf8().constData()).toInt(), kCpuBudget);
    QCOMPARE(queryText(db, "SELECT count(DISTINCT config_index) FROM trials WHERE session = 1").toInt(),
             kCpuBudget);
    QCOMPARE(queryText(db, "SELECT backend FROM sessions WHERE id = 1"), QString("cpu"));
    QCOMPARE(queryText(db, "SELECT status FROM sessions WHERE id = 1"), QString("completed"));
    // The backend's metrics are stored with each trial.
    QVERIFY(queryText(db, "SELECT metrics FROM trials WHERE session = 1 AND status = 'ok' LIMIT 1")
                .contains("gflops"));
    qInfo("%d kills (%d just after a committed trial), %d trials before the final resume", kCpuKills,
          betweenTrials, stored);
}

void TestCrashSafety::readersBrowseWhileTheCliTunes() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    QProcess process;
    QByteArray buffer;
    QVERIFY(startTuning(process, db, buffer, 1) > 0);

    // A browser's view: its own store on the same file, reading while the CLI commits.
    RecordStore reader(db.toStdString());
    std::size_t seen = 0;
    int reads = 0;
    int midRunReads = 0; // reads that saw a session still being written
    while (process.state() == QProcess::Running) {
        const std::vector<StoredTrial> trials = reader.trials(1);
        QVERIFY(trials.size() >= seen);
        for (std::size_t i = 0; i < trials.size(); ++i)
            QCOMPARE(trials[i].number, static_cast<std::int64_t>(i));
        seen = trials.size();
        QCOMPARE(reader.sessions().size(), std::size_t{1});
        ++reads;
        if (seen > 0 && seen < std::size_t{kBudget})
            ++midRunReads;
        process.waitForReadyRead(5);
        process.readAllStandardError();
    }
    if (process.state() != QProcess::NotRunning)
        QVERIFY(process.waitForFinished(kWaitMs));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(reader.trials(1).size(), std::size_t{kBudget});
    QVERIFY(midRunReads > 0);
    qInfo("%d reads while the CLI tuned, %d of them mid-session", reads, midRunReads);
}

void TestCrashSafety::oneProcessRunsASessionAtATime() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    // In one process: a second lock on the same session is refused, another session is not, and a released
    // lock can be taken again.
    {
        SessionLock first(db.toStdString(), 5);
        QVERIFY(first.held());
        QVERIFY_THROWS_EXCEPTION(Error, SessionLock(db.toStdString(), 5));
        SessionLock other(db.toStdString(), 6);
        QVERIFY(other.held());
    }
    SessionLock again(db.toStdString(), 5);
    QVERIFY(again.held());

    // Across processes: while a tuning CLI is stopped (SIGSTOP) in the middle of session 1, resuming that
    // session elsewhere is refused with one sentence and changes nothing; once the CLI is killed, the kernel
    // has released its lock and the resume completes the budget.
    QProcess tuner;
    QByteArray buffer;
    QVERIFY(startTuning(tuner, db, buffer, 5) >= 5);
    QVERIFY(tuner.state() == QProcess::Running);
    ::kill(static_cast<pid_t>(tuner.processId()), SIGSTOP);
    const QString before = queryText(db, "SELECT COUNT(*) FROM trials");
    QProcess second;
    second.start(TUNESCOPE_CLI, {"tune", "--resume", "1", "--db", db});
    QVERIFY(second.waitForFinished(kWaitMs));
    const QString error = QString::fromUtf8(second.readAllStandardError());
    QCOMPARE(second.exitCode(), 1);
    QVERIFY2(error.contains("Session 1 of ") && error.contains("is being run by another process"),
             qPrintable(error));
    QCOMPARE(error.count('\n'), 1);
    QCOMPARE(queryText(db, "SELECT COUNT(*) FROM trials"), before);
    QCOMPARE(queryText(db, "SELECT status FROM sessions WHERE id = 1"), QString("running"));

    ::kill(static_cast<pid_t>(tuner.processId()), SIGKILL);
    QVERIFY(tuner.waitForFinished(kWaitMs));
    QProcess resumed;
    resumed.start(TUNESCOPE_CLI, {"tune", "--resume", "1", "--db", db});
    QVERIFY(resumed.waitForFinished(kWaitMs));
    QVERIFY2(resumed.exitCode() == 0, resumed.readAllStandardError().constData());
    QCOMPARE(queryText(db, "SELECT COUNT(*) FROM trials WHERE session = 1"), QString::number(kBudget));
    QCOMPARE(queryText(db, "SELECT status FROM sessions WHERE id = 1"), QString("completed"));
}

QTEST_APPLESS_MAIN(TestCrashSafety)
#include "TestCrashSafety.moc"
