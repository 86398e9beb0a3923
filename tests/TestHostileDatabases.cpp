// Hostile records databases, through the real CLI: a database where nothing can be written (a read-only
// mount, or a 444 file in a 555 folder) is listed, shown and exported; `tune` refuses a damaged file before
// writing a byte to it; and a write lock another process holds for longer than SQLite's usual wait makes a
// session wait (saying so once) instead of failing, up to --db-wait.
#include "CliRun.h"
#include "SqlExec.h"

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using ts::test::runCli;

namespace {

const QString kPnpoly = TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz";

// A real database: `sessions` replay sessions of `budget` trials each.
void tuneSessions(const QString& db, int sessions, int budget) {
    for (int i = 0; i < sessions; ++i) {
        const ts::test::CliResult r =
            runCli({"tune", "--dataset", kPnpoly, "--strategy", "random_sample", "--budget",
                    QString::number(budget), "--seed", QString::number(i + 1), "--db", db});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
}

QByteArray sha256(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&file);
    return hash.result().toHex();
}

QStringList filesIn(const QString& folder) {
    QStringList names;
    for (const auto& entry : std::filesystem::directory_iterator(folder.toStdString()))
        names << QString::fromStdString(entry.path().filename().string());
    names.sort();
    return names;
}

// A folder where nothing can be created or written, even by root: a tmpfs mounted read-only when the test
// may mount (root), else a 555 folder with 444 files. Files are copied in before it is sealed.
class ReadOnlyPlace {
public:
    explicit ReadOnlyPlace(const QString& folder) : m_folder(folder) {
        std::filesystem::create_directories(folder.toStdString());
        if (::geteuid() == 0)
            m_mounted =
                QProcess::execute("mount", {"-t", "tmpfs", "-o", "size=64m", "tunescope-test", folder}) == 0;
    }
    ~ReadOnlyPlace() {
        if (m_mounted)
            QProcess::execute("umount", {m_folder});
        else
            std::filesystem::permissions(m_folder.toStdString(), std::filesystem::perms::owner_all);
    }
    // True when the place really is read-only for this process; `why` says why not otherwise.
    bool seal(QString& why) {
        if (m_mounted) {
            if (QProcess::execute("mount", {"-o", "remount,ro", m_folder}) != 0) {
                why = "remounting the tmpfs read-only failed";
                return false;
            }
        } else if (::geteuid() == 0) {
            why = "running as root where mount is refused, so nothing is read-only";
            return false;
        } else {
            for (const QString& name : filesIn(m_folder))
                std::filesystem::permissions((m_folder + "/" + name).toStdString(),
                                             std::filesystem::perms::owner_read);
            std::filesystem::permissions(m_folder.toStdString(), std::filesystem::perms::owner_read |
                                                                     std::filesystem::perms::owner_exec);
        }
        // Checked, not assumed.
        QFile probe(m_folder + "/probe");
        if (probe.open(QIODevice::WriteOnly)) {
            probe.remove();
            why = "the folder is still writable";
            return false;
        }
        return true;
    }

private:
    QString m_folder;
    bool m_mounted = false;
};

// A connection of the test's own, standing for another process that writes to the database.
class OtherWriter {
public:
    explicit OtherWriter(const QString& db) {
        if (sqlite3_open(db.toUtf8().constData(), &m_db) != SQLITE_OK)
            qFatal("cannot open %s", qPrintable(db));
    }
    ~OtherWriter() { sqlite3_close(m_db); }
    void exec(const char* sql) {
        if (sqlite3_exec(m_db, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
            qFatal("cannot run %s: %s", sql, sqlite3_errmsg(m_db));
    }
    QString text(const char* sql) {
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(m_db, sql, -1, &statement, nullptr) != SQLITE_OK)
            qFatal("cannot prepare %s: %s", sql, sqlite3_errmsg(m_db));
        QString result;
        if (sqlite3_step(statement) == SQLITE_ROW)
            result = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
        sqlite3_finalize(statement);
        return result;
    }

private:
    sqlite3* m_db = nullptr;
};

// Reads the CLI's stderr until `text` shows up (true) or it ends or the deadline passes (false).
bool waitForStderr(QProcess& cli, QByteArray& err, const QByteArray& text, std::chrono::seconds deadline) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (!err.contains(text) && cli.state() == QProcess::Running &&
           std::chrono::steady_clock::now() < end) {
        cli.waitForReadyRead(100);
        err += cli.readAllStandardError();
    }
    err += cli.readAllStandardError();
    return err.contains(text);
}

QStringList replayTune(const QString& db, int budget) {
    return {"tune",
            "--dataset",
            kPnpoly,
            "--strategy",
            "random_sample",
            "--budget",
            QString::number(budget),
            "--seed",
            "7",
            "--db",
            db};
}

} // namespace

class TestHostileDatabases : public QObject {
    Q_OBJECT

private slots:
    void readOnlyDatabaseIsListedShownAndExported();
    void tuneRefusesADamagedDatabaseWithoutWritingToIt();
    void sessionWaitsForAnotherWritersLock();
    void lockHeldPastDbWaitFailsWithOneSentence();
};

void TestHostileDatabases::readOnlyDatabaseIsListedShownAndExported() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString original = dir.filePath("records.db");
    tuneSessions(original, 2, 30);
    const ts::test::CliResult list = runCli({"records", "--db", original, "list"});
    const ts::test::CliResult show = runCli({"records", "--db", original, "show", "2"});
    const ts::test::CliResult csv =
        runCli({"export", "--format", "csv", "--session", "1", "-o", "-", "--db", original});
    QVERIFY2(list.exitCode == 0 && show.exitCode == 0 && csv.exitCode == 0,
             qPrintable(list.err + show.err + csv.err));
    QVERIFY(list.out.contains("random_sample"));
    // The writers closed and checkpointed: the file alone holds everything (readers may leave an empty log).
    const std::string wal = original.toStdString() + "-wal";
    QVERIFY(!std::filesystem::exists(wal) || std::filesystem::file_size(wal) == 0);

    const QString folder = dir.filePath("ro");
    ReadOnlyPlace place(folder);
    QVERIFY(QFile::copy(original, folder + "/records.db"));
    QString why;
    if (!place.seal(why))
        QSKIP(qPrintable("no read-only place can be made here: " + why));
    const QString db = folder + "/records.db";
    const QByteArray before = sha256(db);

    const ts::test::CliResult roList = runCli({"records", "--db", db, "list"});
    QVERIFY2(roList.exitCode == 0, qPrintable(roList.err));
    QCOMPARE(roList.out, list.out);
    const ts::test::CliResult roShow = runCli({"records", "--db", db, "show", "2"});
    QVERIFY2(roShow.exitCode == 0, qPrintable(roShow.err));
    QCOMPARE(roShow.out, show.out);
    const ts::test::CliResult roCsv =
        runCli({"export", "--format", "csv", "--session", "1", "-o", "-", "--db", db});
    QVERIFY2(roCsv.exitCode == 0, qPrintable(roCsv.err));
    QCOMPARE(roCsv.out, csv.out);
    const ts::test::CliResult deploy = runCli({"export", "--format", "deploy", "-o", "-", "--db", db});
    QVERIFY2(deploy.exitCode == 0 && deploy.out.contains("pnpoly"), qPrintable(deploy.err));

    // Writing still says why it cannot, in one sentence naming the file; the file is as it was.
    const ts::test::CliResult tune = runCli(replayTune(db, 5));
    QCOMPARE(tune.exitCode, 1);
    QVERIFY2(tune.err.trimmed() ==
                 QString("tunescope-cli: The records database %1 is in a read-only folder or "
                         "mount, so nothing can be recorded in it.")
                     .arg(db),
             qPrintable(tune.err));
    QCOMPARE(sha256(db), before);
    QCOMPARE(filesIn(folder), QStringList{"records.db"});
}

void TestHostileDatabases::tuneRefusesADamagedDatabaseWithoutWritingToIt() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    tuneSessions(db, 1, 2000);
    ts::test::execSql(db, "UPDATE sessions SET budget = 3000"); // so that it can be resumed
    QVERIFY(!std::filesystem::exists(db.toStdString() + "-wal"));
    const auto size = std::filesystem::file_size(db.toStdString());
    QVERIFY2(size > 32 * 4096, "the database is too small to damage a page in its middle");
    {
        // Scribble over pages in the middle, keeping the header (and so the schema version) intact.
        std::fstream file(db.toStdString(), std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(static_cast<std::streamoff>(size / 2));
        const std::string junk(3 * 4096, '\xA5');
        file.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
    const QByteArray before = sha256(db);

    const ts::test::CliResult r = runCli(replayTune(db, 5));
    QCOMPARE(r.exitCode, 1);
    const QString message = r.err.trimmed();
    QVERIFY2(message.startsWith(
                 QString("tunescope-cli: The records database %1 is damaged (quick_check: ").arg(db)) &&
                 message.endsWith("), so nothing was written to it.") && !message.contains('\n'),
             qPrintable(message));
    QCOMPARE(sha256(db), before);

    // Resuming reads the session first, which may already meet the damage; either way nothing is written.
    const ts::test::CliResult resumed = runCli({"tune", "--resume", "1", "--db", db});
    QCOMPARE(resumed.exitCode, 1);
    const QString refusal = resumed.err.trimmed();
    QVERIFY2(refusal.contains(db) && (refusal.contains("is damaged") || refusal.contains("malformed")) &&
                 !refusal.contains('\n'),
             qPrintable(refusal));
    QCOMPARE(sha256(db), before);
}

// Another process holds the write lock before the session starts and for longer than SQLite's usual 5 s:
// the session says once that it waits, waits, and completes with all its trials when the lock goes.
void TestHostileDatabases::sessionWaitsForAnotherWritersLock() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    tuneSessions(db, 1, 10);
    OtherWriter other(db);
    other.exec("BEGIN IMMEDIATE");

    QProcess cli;
    cli.start(TUNESCOPE_CLI, replayTune(db, 40) << "--db-wait"
                                                << "120");
    QVERIFY(cli.waitForStarted());
    QByteArray err;
    const QByteArray notice =
        QString(
            "Waiting for another process to release its lock on the records database %1 (up to 120 s, see "
            "--db-wait).")
            .arg(db)
            .toUtf8();
    QVERIFY2(waitForStderr(cli, err, notice, std::chrono::seconds(60)), err.constData());
    // Longer than the 5 s SQLite waited before: the CLI must still be waiting, not failed.
    QVERIFY2(!cli.waitForFinished(6000), qPrintable(QString::fromUtf8(err + cli.readAllStandardError())));
    other.exec("ROLLBACK");

    QVERIFY(cli.waitForFinished(60000));
    err += cli.readAllStandardError();
    QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0, err.constData());
    QCOMPARE(err.count(notice), 1);
    QCOMPARE(other.text("SELECT count(*) FROM trials WHERE session = 2"), QString("40"));
    QCOMPARE(other.text("SELECT status FROM sessions WHERE id = 2"), QString("completed"));
    QCOMPARE(other.text("SELECT count(*) FROM trials WHERE session = 1"), QString("10"));
}

void TestHostileDatabases::lockHeldPastDbWaitFailsWithOneSentence() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    tuneSessions(db, 1, 10);
    OtherWriter other(db);
    other.exec("BEGIN IMMEDIATE");

    const ts::test::CliResult r = runCli(replayTune(db, 40) << "--db-wait"
                                                            << "2");
    QCOMPARE(r.exitCode, 1);
    const QString last = r.err.trimmed().section('\n', -1);
    QVERIFY2(last.startsWith(QString("tunescope-cli: Cannot save a new session in the records database %1: "
                                     "another process held its lock for more than 2 s")
                                 .arg(db)) &&
                 last.endsWith(")."),
             qPrintable(r.err));
    other.exec("ROLLBACK");
    QCOMPARE(other.text("PRAGMA integrity_check"), QString("ok"));
    QCOMPARE(other.text("SELECT count(*) FROM sessions"), QString("1"));
    QCOMPARE(other.text("SELECT count(*) FROM trials WHERE session = 1"), QString("10"));
}

QTEST_GUILESS_MAIN(TestHostileDatabases)
#include "TestHostileDatabases.moc"
