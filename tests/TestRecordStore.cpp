#include "store/RecordStore.h"
#include "util/Error.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include <unistd.h>

using namespace ts;

namespace {

// The message of the Error thrown by `action`, or an empty string when it throws none.
QString errorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

// A raw connection of our own, as another process (sqlite3 CLI, another tunescope) would open.
struct RawConnection {
    explicit RawConnection(const std::filesystem::path& path) {
        if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
            qFatal("cannot open %s", path.c_str());
    }
    ~RawConnection() { sqlite3_close(db); }
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;

    void exec(const char* sql) {
        char* message = nullptr;
        if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK)
            qFatal("%s failed: %s", sql, message);
    }
    QString text(const char* sql) {
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) != SQLITE_OK)
            qFatal("cannot prepare %s: %s", sql, sqlite3_errmsg(db));
        QString result;
        if (sqlite3_step(statement) == SQLITE_ROW)
            result = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
        sqlite3_finalize(statement);
        return result;
    }

    sqlite3* db = nullptr;
};

SessionRecord sampleSession() {
    SessionRecord session;
    session.kernel = "matmul";
    session.problem = R"({"n":4096})";
    session.device = "NVIDIA H200 sm_90";
    session.backend = "replay";
    session.dataset = "/data/matmul.json.gz";
    session.strategy = "random_sample";
    session.options = R"({"fraction":0.1})";
    session.seed = 0xF00000000000002AULL; // above 2^63: must survive the signed INTEGER column
    session.spaceMode = "constrained";
    session.budget = 250;
    session.parameters = R"(["block","unroll","ratio","layout"])";
    session.toolVersion = "0.1.0";
    session.startedAt = 1700000000.25;
    return session;
}

const std::vector<std::string> kNames{"block", "unroll", "ratio", "layout"};

Trial sampleTrial(std::int64_t number) {
    Trial trial;
    trial.number = number;
    trial.index = 17 + static_cast<SearchSpace::Index>(number);
    trial.config = {Value{std::int64_t{16}}, Value{true}, Value{1.5}, Value{std::string("row")}};
    trial.measurement.status = MeasureStatus::Ok;
    trial.measurement.samples = {3.0, 1.0, 2.0};
    trial.measurement.objective = 2.0;
    trial.measurement.compileMs = 12.5;
    trial.measurement.log = "built";
    trial.predicted = 1.75;
    trial.batch = 3;
    trial.elapsedS = 4.5;
    trial.strategyMs = 0.25;
    trial.finishedAt = 1700000004.75;
    return trial;
}

} // namespace

class TestRecordStore : public QObject {
    Q_OBJECT

private slots:
    void roundTripsSessionsAndTrials();
    void secondConnectionSeesEachCommit();
    void usesWalAndSchemaVersion();
    void createsParentDirectories();
    void rejectsNewerSchema();
    void rejectsGarbageFile();
    void rejectsForeignDatabase();
    void rejectsPathBelowRegularFile();
    void failedCommitLeavesDatabaseIntact();
    void failedConstraintRollsBack();
    void endSessionSetsStatusAndTime();
    void defaultPathHonoursXdgDataHome();
    void migratesSchemaOneKeepingItsRecords();
    void storesWorkloadsAndTheirTasks();
    void storesMetricsAndSessionProvenance();
    void fullDiskFailsCleanlyAndLosesNothing();
    void readOnlyFileReadsButRefusesWrites();
    void corruptedFileFailsWithOneSentence();
};

void TestRecordStore::roundTripsSessionsAndTrials() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();

    const SessionRecord original = sampleSession();
    Trial ok = sampleTrial(0);
    Trial failed = sampleTrial(1);
    failed.index = 0x8000000000000005ULL;
    failed.config = {Value{std::int64_t{-3}}, Value{false}, Value{0.125}, Value{std::string("col \"x\"")}};
    failed.measurement.status = MeasureStatus::CompileFailed;
    failed.measurement.samples.clear();
    failed.measurement.objective = 0.0;
    failed.measurement.log = "error: too many registers\nline 2";
    failed.predicted.reset();
    failed.batch = 4;

    std::int64_t first = 0;
    std::int64_t second = 0;
    {
        RecordStore store(path);
        QCOMPARE(store.path(), path);
        first = store.beginSession(original);
        SessionRecord other = original;
        other.kernel = "conv";
        other.seed = 7;
        second = store.beginSession(other);
        QVERIFY(second > first);
        // Committed out of order: trials() must still come back ordered by number.
        store.commit(first, failed, kNames);
        store.commit(first, ok, kNames);
    }

    // Read through a fresh store so that everything comes from the file.
    RecordStore store(path);
    const std::vector<SessionRecord> sessions = store.sessions();
    QCOMPARE(sessions.size(), std::size_t{2});
    QCOMPARE(sessions[0].id, first);
    QCOMPARE(sessions[1].id, second);
    QCOMPARE(sessions[1].kernel, std::string("conv"));
    QCOMPARE(sessions[1].seed, std::uint64_t{7});

    const std::optional<SessionRecord> read = store.session(first);
    QVERIFY(read.has_value());
    QCOMPARE(read->id, first);
    QCOMPARE(read->kernel, original.kernel);
    QCOMPARE(read->problem, original.problem);
    QCOMPARE(read->device, original.device);
    QCOMPARE(read->backend, original.backend);
    QCOMPARE(read->dataset, original.dataset);
    QCOMPARE(read->strategy, original.strategy);
    QCOMPARE(read->options, original.options);
    QCOMPARE(read->seed, std::uint64_t{0xF00000000000002AULL});
    QCOMPARE(read->spaceMode, original.spaceMode);
    QCOMPARE(read->budget, original.budget);
    QCOMPARE(read->parameters, original.parameters);
    QCOMPARE(read->toolVersion, original.toolVersion);
    QCOMPARE(read->startedAt, original.startedAt);
    QVERIFY(!read->endedAt.has_value());
    QCOMPARE(read->status, std::string("running"));
    QVERIFY(!store.session(second + 100).has_value());

    const std::vector<StoredTrial> trials = store.trials(first);
    QCOMPARE(trials.size(), std::size_t{2});
    QVERIFY(store.trials(second).empty());

    const StoredTrial& a = trials[0];
    QCOMPARE(a.session, first);
    QCOMPARE(a.number, std::int64_t{0});
    QCOMPARE(a.index, std::uint64_t{17});
    QCOMPARE(a.config, std::string(R"({"block":16,"unroll":true,"ratio":1.5,"layout":"row"})"));
    QCOMPARE(a.status, std::string(toString(MeasureStatus::Ok)));
    QCOMPARE(a.objective, 2.0);
    QCOMPARE(a.samples, (std::vector<double>{3.0, 1.0, 2.0}));
    QCOMPARE(a.median, 2.0);
    QCOMPARE(a.min, 1.0);
    QCOMPARE(a.mean, 2.0);
    QCOMPARE(a.stdev, 1.0);
    QCOMPARE(a.cv, 0.5);
    QVERIFY(a.predicted.has_value());
    QCOMPARE(*a.predicted, 1.75);
    QCOMPARE(a.compileMs, 12.5);
    QCOMPARE(a.log, std::string("built"));
    QCOMPARE(a.batch, std::int64_t{3});
    QCOMPARE(a.elapsedS, 4.5);
    QCOMPARE(a.finishedAt, 1700000004.75);

    const StoredTrial& b = trials[1];
    QCOMPARE(b.session, first);
    QCOMPARE(b.number, std::int64_t{1});
    QCOMPARE(b.index, std::uint64_t{0x8000000000000005ULL});
    QCOMPARE(b.config, std::string(R"({"block":-3,"unroll":false,"ratio":0.125,"layout":"col \"x\""})"));
    QCOMPARE(b.status, std::string(toString(MeasureStatus::CompileFailed)));
    QVERIFY(b.status != a.status);
    QVERIFY(b.samples.empty());
    QVERIFY(!b.predicted.has_value());
    QCOMPARE(b.log, failed.measurement.log);
    QCOMPARE(b.batch, std::int64_t{4});
}

void TestRecordStore::secondConnectionSeesEachCommit() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();

    RecordStore writer(path);
    const std::int64_t session = writer.beginSession(sampleSession());
    RecordStore reader(path);
    QCOMPARE(reader.sessions().size(), std::size_t{1});
    for (std::int64_t number = 0; number < 3; ++number) {
        writer.commit(session, sampleTrial(number), kNames);
        const std::vector<StoredTrial> seen = reader.trials(session);
        QCOMPARE(seen.size(), static_cast<std::size_t>(number + 1));
        QCOMPARE(seen.back().number, number);
        RawConnection raw(path);
        QCOMPARE(raw.text("SELECT count(*) FROM trials"), QString::number(number + 1));
    }
}

void TestRecordStore::usesWalAndSchemaVersion() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();
    RecordStore store(path);

    RawConnection raw(path);
    QCOMPARE(raw.text("PRAGMA journal_mode"), QString("wal"));
    QCOMPARE(raw.text("PRAGMA user_version"), QString::number(RecordStore::kSchemaVersion));
    QCOMPARE(RecordStore::kSchemaVersion, 4);
    QCOMPARE(raw.text("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name LIKE 'trials_by_%'"),
             QString("2"));

    // foreign_keys is on for the store's connection: a trial of no session is refused.
    const QString message = errorOf([&] { store.commit(42, sampleTrial(0), kNames); });
    QVERIFY2(message.contains(QString::fromStdString(path.string())), qPrintable(message));
    QVERIFY2(message.contains("FOREIGN KEY"), qPrintable(message));
}

void TestRecordStore::createsParentDirectories() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("a/b/c/records.db").toStdString();
    {
        RecordStore store(path);
        store.beginSession(sampleSession());
    }
    QVERIFY(std::filesystem::is_regular_file(path));
    QCOMPARE(RecordStore(path).sessions().size(), std::size_t{1});
}

void TestRecordStore::rejectsNewerSchema() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();
    { RecordStore store(path); }
    {
        RawConnection raw(path);
        raw.exec("PRAGMA user_version=99");
    }
    const QString message = errorOf([&] { RecordStore store(path); });
    QCOMPARE(message, QString::fromStdString(path.string()) +
                          " was written by a newer Tunescope (schema 99, this build reads up to 4).");
    // Opening did not touch the version.
    QCOMPARE(RawConnection(path).text("PRAGMA user_version"), QString("99"));
}

void TestRecordStore::rejectsGarbageFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const std::size_t size : {std::size_t{20}, std::size_t{8192}}) {
        const std::filesystem::path path = dir.filePath(QString("garbage%1.db").arg(size)).toStdString();
        {
            std::ofstream out(path, std::ios::binary);
            out << std::string(size, 'x');
        }
        const QString message = errorOf([&] { RecordStore store(path); });
        QCOMPARE(message, QString::fromStdString(path.string()) +
                              " is not a Tunescope records database (file is not a database).");
        QCOMPARE(std::filesystem::file_size(path), size);
    }
}

void TestRecordStore::rejectsForeignDatabase() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("other.db").toStdString();
    {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "CREATE TABLE sessions (x)", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    const QString message = errorOf([&] { RecordStore store(path); });
    QVERIFY2(
        message.startsWith(QString::fromStdString(path.string()) + " is not a Tunescope records database"),
        qPrintable(message));
    QCOMPARE(RawConnection(path).text("PRAGMA user_version"), QString("0"));
}

void TestRecordStore::rejectsPathBelowRegularFile() {
    // A regular file where a directory should be: fails for root too, unlike a chmod 0555 directory.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path file = dir.filePath("somefile").toStdString();
    std::ofstream(file) << "not a directory";
    for (const char* relative : {"somefile/records.db", "somefile/sub/records.db"}) {
        const std::filesystem::path path = dir.filePath(relative).toStdString();
        const QString message = errorOf([&] { RecordStore store(path); });
        QVERIFY2(message.startsWith("Cannot create the records database " +
                                    QString::fromStdString(path.string()) + ": "),
                 qPrintable(message));
        QVERIFY2(message.endsWith("."), qPrintable(message));
    }
}

void TestRecordStore::failedCommitLeavesDatabaseIntact() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();
    RecordStore store(path);
    const std::int64_t session = store.beginSession(sampleSession());
    store.commit(session, sampleTrial(0), kNames);
    store.setBusyTimeout(std::chrono::milliseconds(50));

    {
        // Another process holds the write lock for longer than we wait.
        RawConnection locker(path);
        locker.exec("BEGIN EXCLUSIVE");
        const QString message = errorOf([&] { store.commit(session, sampleTrial(1), kNames); });
        QVERIFY2(message.contains(QString::fromStdString(path.string())), qPrintable(message));
        QVERIFY2(message.contains("database is locked"), qPrintable(message));
        QVERIFY2(message.endsWith(")."), qPrintable(message));
        const QString endMessage = errorOf([&] { store.endSession(session, "completed"); });
        QVERIFY2(endMessage.contains(QString::fromStdString(path.string())), qPrintable(endMessage));
        // Reads go on while another connection writes (WAL).
        QCOMPARE(store.trials(session).size(), std::size_t{1});
        locker.exec("ROLLBACK");
    }

    const std::vector<StoredTrial> trials = store.trials(session);
    QCOMPARE(trials.size(), std::size_t{1});
    QCOMPARE(trials[0].number, std::int64_t{0});
    QCOMPARE(store.session(session)->status, std::string("running"));

    // The store recovers once the lock is gone.
    store.commit(session, sampleTrial(1), kNames);
    QCOMPARE(RecordStore(path).trials(session).size(), std::size_t{2});
}

void TestRecordStore::failedConstraintRollsBack() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();
    RecordStore store(path);
    const std::int64_t session = store.beginSession(sampleSession());
    store.commit(session, sampleTrial(0), kNames);

    Trial duplicate = sampleTrial(0);
    duplicate.measurement.log = "second";
    const QString message = errorOf([&] { store.commit(session, duplicate, kNames); });
    QVERIFY2(message.contains(QString::fromStdString(path.string())), qPrintable(message));
    QVERIFY2(message.contains("UNIQUE constraint failed"), qPrintable(message));

    // No transaction was left open: another connection can write at once.
    RecordStore other(path);
    other.setBusyTimeout(std::chrono::milliseconds(50));
    other.commit(session, sampleTrial(1), kNames);
    store.commit(session, sampleTrial(2), kNames);
    const std::vector<StoredTrial> trials = store.trials(session);
    QCOMPARE(trials.size(), std::size_t{3});
    QCOMPARE(trials[0].log, std::string("built"));
}

void TestRecordStore::endSessionSetsStatusAndTime() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();
    RecordStore store(path);
    const std::int64_t first = store.beginSession(sampleSession());
    const std::int64_t second = store.beginSession(sampleSession());

    const double before =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    store.endSession(first, "cancelled");
    const double after =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();

    const std::optional<SessionRecord> ended = RecordStore(path).session(first);
    QVERIFY(ended.has_value());
    QCOMPARE(ended->status, std::string("cancelled"));
    QVERIFY(ended->endedAt.has_value());
    QVERIFY(*ended->endedAt >= before - 0.001 && *ended->endedAt <= after + 0.001);
    QCOMPARE(store.session(second)->status, std::string("running"));
    QVERIFY(!store.session(second)->endedAt.has_value());

    const QString message = errorOf([&] { store.endSession(second + 10, "completed"); });
    QVERIFY2(message.contains(QString::fromStdString(path.string())), qPrintable(message));
}

void TestRecordStore::defaultPathHonoursXdgDataHome() {
    const QByteArray savedXdg = qgetenv("XDG_DATA_HOME");
    const bool hadXdg = qEnvironmentVariableIsSet("XDG_DATA_HOME");
    const QByteArray savedHome = qgetenv("HOME");
    auto restore = qScopeGuard([&] {
        if (hadXdg)
            qputenv("XDG_DATA_HOME", savedXdg);
        else
            qunsetenv("XDG_DATA_HOME");
        qputenv("HOME", savedHome);
    });

    qputenv("HOME", "/home/tester");
    qputenv("XDG_DATA_HOME", "/xdg/data");
    QCOMPARE(RecordStore::defaultPath(), std::filesystem::path("/xdg/data/tunescope/records.db"));
    qputenv("XDG_DATA_HOME", "");
    QCOMPARE(RecordStore::defaultPath(),
             std::filesystem::path("/home/tester/.local/share/tunescope/records.db"));
    qunsetenv("XDG_DATA_HOME");
    QCOMPARE(RecordStore::defaultPath(),
             std::filesystem::path("/home/tester/.local/share/tunescope/records.db"));
}

namespace {

// The schema as Tunescope 0.1 (schema 1) created it, to check the upgrade of a file written back then.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE sessions (id INTEGER PRIMARY KEY, kernel TEXT NOT NULL, problem TEXT NOT NULL, device TEXT NOT NULL,
    backend TEXT NOT NULL, dataset TEXT NOT NULL, strategy TEXT NOT NULL, options TEXT NOT NULL,
    seed INTEGER NOT NULL, space_mode TEXT NOT NULL, budget INTEGER NOT NULL, parameters TEXT NOT NULL,
    tool_version TEXT NOT NULL, started_at REAL NOT NULL, ended_at REAL, status TEXT NOT NULL DEFAULT 'running');
CREATE TABLE trials (session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, number INTEGER NOT NULL,
    config_index INTEGER NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL, objective REAL, samples TEXT NOT NULL,
    median REAL, min REAL, mean REAL, stdev REAL, cv REAL, predicted REAL, compile_ms REAL, log TEXT NOT NULL,
    batch INTEGER NOT NULL, elapsed_s REAL, finished_at REAL, PRIMARY KEY (session, number));
CREATE INDEX trials_by_session ON trials(session);
CREATE INDEX trials_by_session_objective ON trials(session, objective);
INSERT INTO sessions VALUES (1, 'matmul', '[64]', 'NVIDIA A100', 'replay', '/d.json', 'random_sample', '{}', 5,
    'constrained', 10, '["block"]', '0.1.0', 1700000000.0, 1700000010.0, 'completed');
INSERT INTO trials VALUES (1, 0, 2, '{"block":16}', 'ok', 2.5, '[2.0,3.0]', 2.5, 2.0, 2.5, 0.7, 0.28, NULL, 1.0,
    '', 0, 0.5, 1700000001.0);
PRAGMA user_version=1;
)sql";

} // namespace

void TestRecordStore::migratesSchemaOneKeepingItsRecords() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("v1.db").toStdString();
    {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, kSchemaV1, nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    {
        RecordStore store(path);
        QCOMPARE(store.schemaVersion(), std::int64_t{4});
        const std::optional<SessionRecord> session = store.session(1);
        QVERIFY(session.has_value());
        QCOMPARE(session->kernel, std::string("matmul"));
        QCOMPARE(session->seed, std::uint64_t{5});
        QCOMPARE(session->sourceHash, std::string());
        QCOMPARE(session->deviceInfo, std::string("{}"));
        QCOMPARE(session->settings, std::string("{}"));
        const std::vector<StoredTrial> trials = store.trials(1);
        QCOMPARE(trials.size(), std::size_t{1});
        QCOMPARE(trials[0].config, std::string(R"({"block":16})"));
        QCOMPARE(trials[0].objective, 2.5);
        QCOMPARE(trials[0].samples, (std::vector<double>{2.0, 3.0}));
        QVERIFY(trials[0].metrics.empty());
        // The upgraded file takes new trials with metrics.
        Trial next = sampleTrial(1);
        next.measurement.metrics = {{"gflops", 812.5}};
        store.commit(1, next, {"block", "unroll", "ratio", "layout"});
        QCOMPARE(store.trials(1).back().metrics.at("gflops"), 812.5);
    }
    RawConnection raw(path);
    QCOMPARE(raw.text("PRAGMA user_version"), QString("4"));
    QCOMPARE(raw.text("PRAGMA integrity_check"), QString("ok"));
    // Schema 4's column for the tasks' expected gains came with the walk up.
    QCOMPARE(
        raw.text("SELECT count(*) FROM pragma_table_info('workload_tasks') WHERE name = 'expected_gain'"),
        QString("1"));
    QCOMPARE(raw.text("SELECT metrics FROM trials WHERE number = 0"), QString("{}"));
    // Opening again does not migrate twice (the ALTERs would fail on existing columns).
    QCOMPARE(RecordStore(path).trials(1).size(), std::size_t{2});
}

void TestRecordStore::storesMetricsAndSessionProvenance() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();
    SessionRecord original = sampleSession();
    original.sourceHash = "fnv1a64:0123456789abcdef";
    original.deviceInfo = R"({"kind":"gpu","name":"NVIDIA H200","architecture":"sm_90"})";
    original.settings = R"({"batch_size":4,"constraints":["block >= 16"]})";
    Trial trial = sampleTrial(0);
    trial.measurement.metrics = {{"gflops", 1234.5}, {"noisy", 1.0}, {"registers", 64.0}};
    std::int64_t id = 0;
    {
        RecordStore store(path);
        id = store.beginSession(original);
        store.commit(id, trial, kNames);
    }
    RecordStore store(path);
    const SessionRecord read = *store.session(id);
    QCOMPARE(read.sourceHash, original.sourceHash);
    QCOMPARE(read.deviceInfo, original.deviceInfo);
    QCOMPARE(read.settings, original.settings);
    const std::vector<StoredTrial> trials = store.trials(id);
    QCOMPARE(trials.size(), std::size_t{1});
    QCOMPARE(trials[0].metrics, trial.measurement.metrics);
    QCOMPARE(store.trialCount(id), std::int64_t{1});
    QCOMPARE(store.trialCount(id + 1), std::int64_t{0});

    // Imports keep the given statistics and land all at once.
    StoredTrial imported = trials[0];
    imported.median = 9.0;
    const std::vector<std::int64_t> ids = store.importSessions({original, original}, {{imported}, {}});
    QCOMPARE(ids.size(), std::size_t{2});
    QCOMPARE(store.trials(ids[0]).at(0).median, 9.0);
    QCOMPARE(store.trials(ids[0]).at(0).metrics, trial.measurement.metrics);
    QVERIFY(store.trials(ids[1]).empty());
    // A failing import (a duplicate trial number) adds nothing, not even its session.
    const QString message = errorOf([&] { store.importSessions({original}, {{imported, imported}}); });
    QVERIFY2(message.contains("UNIQUE constraint failed"), qPrintable(message));
    QCOMPARE(store.sessions().size(), std::size_t{3});
}

void TestRecordStore::fullDiskFailsCleanlyAndLosesNothing() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();
    RecordStore store(path);
    const std::int64_t session = store.beginSession(sampleSession());
    std::int64_t pages = 0;
    {
        RawConnection raw(path);
        pages = raw.text("PRAGMA page_count").toLongLong();
    }
    // A real SQLITE_FULL: the file may not grow past a few more pages, and every trial carries a long log.
    QVERIFY(store.setMaxPageCount(pages + 6) >= pages);
    Trial trial = sampleTrial(0);
    trial.measurement.log = std::string(3000, 'x');
    std::int64_t committed = 0;
    QString message;
    for (; committed < 1000 && message.isEmpty(); ++committed) {
        trial.number = committed;
        message = errorOf([&] { store.commit(session, trial, kNames); });
    }
    --committed; // the last attempt failed
    QVERIFY2(message.contains("database or disk is full"), qPrintable(message));
    // Messages number trials from 1, like every other place a user reads them.
    QVERIFY2(message.startsWith(QString("Cannot save trial %1 of session").arg(committed + 1)),
             qPrintable(message));
    QVERIFY2(message.contains(QString::fromStdString(path.string())) && !message.contains('\n'),
             qPrintable(message));
    QVERIFY(committed > 0);
    // Everything committed before is there, the file is sound, and the store works once there is room.
    QCOMPARE(store.trialCount(session), committed);
    QCOMPARE(RawConnection(path).text("PRAGMA integrity_check"), QString("ok"));
    store.setMaxPageCount(1 << 30);
    store.commit(session, trial, kNames);
    QCOMPARE(RecordStore(path).trialCount(session), committed + 1);
}

// Root writes to files whatever their mode, so as root the file is made immutable (chattr +i) instead.
void TestRecordStore::readOnlyFileReadsButRefusesWrites() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();
    std::int64_t session = 0;
    {
        RecordStore store(path);
        session = store.beginSession(sampleSession());
        store.commit(session, sampleTrial(0), kNames);
    }
    const QString file = QString::fromStdString(path.string());
    const bool root = geteuid() == 0;
    if (root) {
        if (QProcess::execute("chattr", {"+i", file}) != 0)
            QSKIP("running as root and chattr +i is refused here, so no read-only file can be made");
    } else {
        std::filesystem::permissions(path,
                                     std::filesystem::perms::owner_read | std::filesystem::perms::group_read);
    }
    auto restore = qScopeGuard([&] {
        if (root)
            QProcess::execute("chattr", {"-i", file});
        else
            std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    });
    RecordStore store(path);
    QCOMPARE(store.trials(session).size(), std::size_t{1});
    const QString message = errorOf([&] { store.commit(session, sampleTrial(1), kNames); });
    QVERIFY2(message.contains("readonly") && message.contains(file), qPrintable(message));
    QCOMPARE(store.trials(session).size(), std::size_t{1});
}

void TestRecordStore::corruptedFileFailsWithOneSentence() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();
    std::int64_t session = 0;
    {
        RecordStore store(path);
        session = store.beginSession(sampleSession());
        Trial trial = sampleTrial(0);
        trial.measurement.log = std::string(500, 'y');
        for (std::int64_t number = 0; number < 100; ++number) {
            trial.number = number;
            store.commit(session, trial, kNames);
        }
    } // the last connection to close checkpoints the WAL into the file
    QVERIFY(!std::filesystem::exists(path.string() + "-wal") ||
            std::filesystem::file_size(path.string() + "-wal") == 0);
    const auto size = std::filesystem::file_size(path);
    QVERIFY(size > 16 * 4096);
    {
        // Scribble over the middle of the file, keeping the header intact.
        std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(static_cast<std::streamoff>(size / 2));
        const std::string junk(3 * 4096, '\xA5');
        file.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
    const QString message = errorOf([&] {
        RecordStore store(path);
        store.trials(session);
        store.trialCount(session);
    });
    QVERIFY2(!message.isEmpty(), "a scribbled-over file read back without an error");
    // Opening for writing (as here) meets it in the integrity check, reading in the first damaged page.
    QVERIFY2(message.contains("malformed") || message.contains("is damaged (quick_check: ") ||
                 message.contains("not a Tunescope records database"),
             qPrintable(message));
    QVERIFY2(message.contains(QString::fromStdString(path.string())) && !message.contains('\n'),
             qPrintable(message));
    QCOMPARE(std::filesystem::file_size(path), size);
}

// A workload groups the sessions of its tasks: stored with its tasks in one go, each task updated as the
// workload goes on, and read back in the tasks' order.
void TestRecordStore::storesWorkloadsAndTheirTasks() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath("records.db").toStdString();
    RecordStore store(path);
    WorkloadRecord workload;
    workload.name = "bert";
    workload.device = "cpu: test";
    workload.scheduler = "gradient";
    workload.options = R"({"alpha":0.2})";
    workload.seed = 18446744073709551615ull;
    workload.budget = 64;
    workload.plan = R"({"name":"bert"})";
    workload.startedAt = 1.5;
    for (int i = 0; i < 3; ++i) {
        WorkloadTaskRecord task;
        task.position = i;
        task.name = "task" + std::to_string(i);
        task.weight = 0.5 + i;
        workload.tasks.push_back(task);
    }
    const std::int64_t id = store.beginWorkload(workload);
    const std::int64_t session = store.beginSession(sampleSession());
    WorkloadTaskRecord tuned = workload.tasks[1];
    tuned.session = session;
    tuned.status = "tuning";
    tuned.expectedGain = 0.125;
    store.updateWorkloadTask(id, tuned);
    WorkloadTaskRecord failed = workload.tasks[2];
    failed.status = "failed";
    failed.error = "Kernel \"x\" does not build.";
    store.updateWorkloadTask(id, failed);
    store.endWorkload(id, "cancelled");

    const std::optional<WorkloadRecord> read = store.workload(id);
    QVERIFY(read.has_value());
    QCOMPARE(read->name, std::string("bert"));
    QCOMPARE(read->seed, workload.seed);
    QCOMPARE(read->budget, std::int64_t{64});
    QCOMPARE(read->options, workload.options);
    QCOMPARE(read->status, std::string("cancelled"));
    QVERIFY(read->endedAt.has_value());
    QCOMPARE(read->tasks.size(), std::size_t{3});
    QVERIFY(!read->tasks[0].session.has_value());
    QCOMPARE(read->tasks[0].status, std::string("pending"));
    QCOMPARE(read->tasks[1].session, std::optional<std::int64_t>(session));
    QCOMPARE(read->tasks[1].weight, 1.5);
    QCOMPARE(read->tasks[1].expectedGain, std::optional<double>(0.125));
    QVERIFY(!read->tasks[0].expectedGain.has_value());
    QCOMPARE(read->tasks[2].error, failed.error);
    QCOMPARE(store.workloads().size(), std::size_t{1});
    store.reopenWorkload(id);
    QCOMPARE(store.workload(id)->status, std::string("running"));
    QVERIFY(!store.workload(id)->endedAt.has_value());
    QVERIFY(!store.workload(id + 1).has_value());
    WorkloadTaskRecord absent;
    absent.position = 7;
    const QString message = errorOf([&] { store.updateWorkloadTask(id, absent); });
    QVERIFY2(message.contains("has no task 8 in workload"), qPrintable(message));
}

QTEST_APPLESS_MAIN(TestRecordStore)
#include "TestRecordStore.moc"
