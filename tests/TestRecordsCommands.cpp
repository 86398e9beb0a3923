// The command line around records, tried as a new user tuning one kernel at several sizes: `records` takes
// --db on either side of its subcommand, list and show print each session's size and best time, show --log
// prints why configs failed, `best` reads sizes with tune's grammar and devices as `records list` names them
// (warning when nothing recorded can match), and `import` says what a file lacks and takes it from flags.
#include "CliRun.h"
#include "hardware/DeviceFingerprint.h"
#include "store/RecordStore.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using namespace ts;

namespace {

using Result = ts::test::CliResult;

const QString kPnpoly = TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz";
const QString kFaulty = TUNESCOPE_TEST_DATA "/kernels/faulty/kernel.json";
const QString kKtPnpoly = TUNESCOPE_TEST_DATA "/kt_pnpoly.json";

// One clear sentence: a single line on stderr, exit status 1, naming every part in `parts`.
void expectSentence(const Result& r, const QStringList& parts) {
    QVERIFY2(r.exitCode == 1, qPrintable(QString::number(r.exitCode) + r.out + r.err));
    const QString err = r.err.trimmed();
    QVERIFY2(!err.contains('\n'), qPrintable(err));
    QVERIFY2(err.startsWith("tunescope-cli: "), qPrintable(err));
    for (const QString& part : parts)
        QVERIFY2(err.contains(part), qPrintable(part + " not in: " + err));
}

QJsonObject json(const Result& r) {
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

QString hostCpu() {
    return QString::fromStdString(DeviceFingerprint::ofHostCpu().name);
}

// The line of `records list` of one session id.
QString listLine(const QString& list, int id) {
    const QRegularExpression line(QString(R"((?:^|\n)(\s*%1\s+completed\s[^\n]*))").arg(id));
    return line.match(list).captured(1);
}

} // namespace

class TestRecordsCommands : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void dbIsAcceptedOnEitherSideOfTheSubcommand();
    void twoDifferentDatabasesAreRefused();
    void listShowsSizeDeviceAndBestTime();
    void showPrintsSizeBestAndStatuses();
    void showLogPrintsWhyEachConfigFailed();
    void showLogCutsAVeryLongLog();
    void bestTakesSizesByName();
    void bestRefusesAnUnknownSizeName();
    void bestRefusesNamesForAReplayKernel();
    void bestAcceptsTheDeviceRecordsListPrints();
    void bestWarnsOfADeviceWithoutRecords();
    void bestWarnsOfASizeOfAnotherRank();
    void importSaysWhatTheFileLacks();
    void importTakesDeviceAndSizeFromFlags();
    void importRefusesABadSizeAndAddsNothing();

private:
    QTemporaryDir m_dir;
    QString m_db;
    QProcessEnvironment m_environment = QProcessEnvironment::systemEnvironment();
    QString m_bareCache; // kt_pnpoly.json with no device name and problem size [1]

    Result cli(const QStringList& arguments) const { return ts::test::runCli(arguments, m_environment); }
};

// Session 1: replay of pnpoly; 2 and 3: the faulty kernel at N=64 and N=128 (3 ok, 3 compile_failed, 3
// wrong_result each); 4: gemm at M=16,N=32,K=48 on the cpu backend.
void TestRecordsCommands::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath("records.db");
    m_environment.insert("TUNESCOPE_CACHE_DIR", m_dir.filePath("builds"));
    const Result replay = cli({"tune", "--dataset", kPnpoly, "--budget", "10", "--db", m_db});
    QVERIFY2(replay.exitCode == 0, qPrintable(replay.err));
    for (const QString size : {"N=64", "N=128"}) {
        const Result faulty = cli({"tune", "--kernel-spec", kFaulty, "--backend", "cpu", "--size", size,
                                   "--constraint", "MODE in ['ok', 'compile_error', 'wrong']", "--strategy",
                                   "brute_force", "--budget", "9", "--db", m_db});
        QVERIFY2(faulty.exitCode == 0, qPrintable(faulty.err));
    }
    const Result gemm = cli({"tune", "--kernel", "gemm", "--backend", "cpu", "--size", "16,32,48",
                             "--strategy", "random_sample", "--budget", "1", "--db", m_db});
    QVERIFY2(gemm.exitCode == 0, qPrintable(gemm.err));

    nlohmann::json cache;
    std::ifstream(kKtPnpoly.toStdString()) >> cache;
    cache["device_name"] = "";
    cache["problem_size"] = {1};
    m_bareCache = m_dir.filePath("kt_bare.json");
    std::ofstream(m_bareCache.toStdString()) << cache.dump();
}

void TestRecordsCommands::dbIsAcceptedOnEitherSideOfTheSubcommand() {
    const Result before = cli({"records", "--db", m_db, "show", "2"});
    const Result after = cli({"records", "show", "2", "--db", m_db});
    QVERIFY2(before.exitCode == 0 && after.exitCode == 0, qPrintable(before.err + after.err));
    QCOMPARE(after.out, before.out);
    QVERIFY(after.out.startsWith("session 2: faulty"));
    const Result list = cli({"records", "list", "--db", m_db});
    QVERIFY2(list.exitCode == 0, qPrintable(list.err));
    QCOMPARE(list.out, cli({"records", "--db", m_db}).out);
    // The same file twice is one database.
    const Result twice = cli({"records", "--db", m_db, "show", "2", "--db", m_db});
    QVERIFY2(twice.exitCode == 0, qPrintable(twice.err));
    QCOMPARE(twice.out, before.out);
}

void TestRecordsCommands::twoDifferentDatabasesAreRefused() {
    const QString other = m_dir.filePath("other.db");
    for (const QStringList& arguments : {QStringList{"records", "--db", m_db, "show", "2", "--db", other},
                                         QStringList{"records", "--db", m_db, "--db", other, "list"}}) {
        const Result r = cli(arguments);
        expectSentence(r, {"--db", "different values", "\"" + m_db + "\"", "\"" + other + "\""});
        QVERIFY(r.out.isEmpty());
    }
    QVERIFY(!QFile::exists(other));
}

void TestRecordsCommands::listShowsSizeDeviceAndBestTime() {
    const Result r = cli({"records", "--db", m_db});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.section('\n', 0, 0).contains(QRegularExpression(R"(kernel\s+size\s+device.*best ms)")),
             qPrintable(r.out));
    RecordStore store(m_db.toStdString(), DatabaseAccess::ReadOnly);
    const QStringList sizes{"", "20000000", "N=64", "N=128", "M=16,N=32,K=48"};
    for (int id = 1; id <= 4; ++id) {
        const QString line = listLine(r.out, id);
        QVERIFY2(!line.isEmpty(), qPrintable(r.out));
        QVERIFY2(line.contains(QRegularExpression("\\s" + sizes[id] + "\\s")), qPrintable(line));
        double best = INFINITY;
        for (const StoredTrial& t : store.trials(id))
            if (t.status == "ok")
                best = std::min(best, t.objective);
        QVERIFY2(line.contains(" " + QString::asprintf("%.6g", best) + " "), qPrintable(line));
    }
    // The device as `best --device` takes it: the CPU's own name, not the backend and compiler text.
    for (int id = 2; id <= 4; ++id) {
        QVERIFY2(listLine(r.out, id).contains(" " + hostCpu() + " "), qPrintable(r.out));
        QVERIFY2(!listLine(r.out, id).contains("cpu: "), qPrintable(r.out));
    }
    QVERIFY2(listLine(r.out, 1).contains(" NVIDIA GeForce RTX 3090 "), qPrintable(r.out));
}

void TestRecordsCommands::showPrintsSizeBestAndStatuses() {
    const Result r = cli({"records", "--db", m_db, "show", "3"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString second = r.out.section('\n', 1, 1);
    QVERIFY2(second.startsWith("size N=128, device \"" + hostCpu() + "\", best "), qPrintable(second));
    QVERIFY2(second.contains(QRegularExpression(R"(best [0-9.e+-]+ ms \(trial [1-3]\))")),
             qPrintable(second));
    QVERIFY2(second.endsWith("trials: 3 ok, 3 compile_failed, 3 wrong_result"), qPrintable(second));
    // Without --log no log is printed.
    QVERIFY2(!r.out.contains("MODE=compile_error"), qPrintable(r.out));
}

void TestRecordsCommands::showLogPrintsWhyEachConfigFailed() {
    const Result r = cli({"records", "show", "2", "--log", "--db", m_db});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString logs = r.out.section("\nlogs of the failed trials:\n", 1);
    QVERIFY2(!logs.isEmpty(), qPrintable(r.out));
    RecordStore store(m_db.toStdString(), DatabaseAccess::ReadOnly);
    int failed = 0;
    for (const StoredTrial& t : store.trials(2)) {
        const QString heading =
            QString("trial %1 %2:\n").arg(t.number + 1).arg(QString::fromStdString(t.status));
        QCOMPARE(logs.contains(heading), t.status != "ok");
        if (t.status == "ok")
            continue;
        ++failed;
        QVERIFY(!t.log.empty());
        const QString firstLine = QString::fromStdString(t.log).section('\n', 0, 0);
        QVERIFY2(logs.contains(heading + "  " + firstLine + "\n"), qPrintable(logs));
    }
    QCOMPARE(failed, 6);
    QVERIFY2(logs.contains("error: #error \"MODE=compile_error"), qPrintable(logs));
    QVERIFY2(logs.contains("wrong result: y["), qPrintable(logs));
}

void TestRecordsCommands::showLogCutsAVeryLongLog() {
    const QString db = m_dir.filePath("longlog.db");
    const std::string log = "first line of a long log\n" + std::string(100000, 'x');
    {
        RecordStore store(db.toStdString());
        SessionRecord session;
        session.kernel = "k";
        session.problem = "[8]";
        session.device = "GPU A";
        session.backend = "replay";
        session.strategy = "random_sample";
        session.options = "{}";
        session.spaceMode = "constrained";
        session.budget = 1;
        session.parameters = R"(["T"])";
        const std::int64_t id = store.beginSession(session);
        Trial trial;
        trial.config = {Value(std::int64_t{1})};
        trial.measurement.status = MeasureStatus::CompileFailed;
        trial.measurement.log = log;
        store.commit(id, trial, {"T"});
        store.endSession(id, "completed");
    }
    const Result r = cli({"records", "show", "1", "--log", "--db", db});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("trial 1 compile_failed:\n  first line of a long log\n"),
             qPrintable(r.out.left(2000)));
    const qsizetype cut = qsizetype(log.size()) - 4000;
    QVERIFY2(r.out.contains(QString("[log cut: %1 more characters of %2;").arg(cut).arg(log.size())),
             qPrintable(r.out.right(500)));
    QVERIFY2(r.out.size() < 6000, qPrintable(QString::number(r.out.size())));
}

void TestRecordsCommands::bestTakesSizesByName() {
    // gemm's problem order is M,N,K: positional, all by name in any order, or some by name (the others at
    // the kernel's defaults, 1024) all read as tune reads them.
    for (const QString size : {"16,32,48", "M=16,N=32,K=48", "K=48,M=16,N=32"}) {
        const Result r = cli({"best", "--db", m_db, "--kernel", "gemm", "--size", size, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        QCOMPARE(json(r)["rule"].toString(), QString("exact"));
    }
    const Result plain = cli({"best", "--db", m_db, "--kernel", "gemm", "--size", "M=16,N=32,K=48"});
    QVERIFY2(plain.out.contains("at size M=16,N=32,K=48 (session 4"), qPrintable(plain.out));
    const Result some = cli({"best", "--db", m_db, "--kernel", "gemm", "--size", "M=16,N=32", "--json"});
    QVERIFY2(some.exitCode == 0, qPrintable(some.err));
    QCOMPARE(json(some)["rule"].toString(), QString("nearest_shape"));
    QVERIFY2(QJsonDocument(json(some)["size"].toArray()).toJson(QJsonDocument::Compact).contains("1024"),
             qPrintable(some.out));
    // A kernel known only from its records (a spec file): its names and defaults come from them.
    const Result faulty = cli({"best", "--db", m_db, "--kernel", "faulty", "--size", "N=128", "--json"});
    QVERIFY2(faulty.exitCode == 0, qPrintable(faulty.err));
    QCOMPARE(json(faulty)["rule"].toString(), QString("exact"));
    QCOMPARE(json(faulty)["entry"].toObject()["session"].toInt(), 3);
}

void TestRecordsCommands::bestRefusesAnUnknownSizeName() {
    expectSentence(cli({"best", "--db", m_db, "--kernel", "gemm", "--size", "H=1024,W=1024"}),
                   {"\"H=1024,W=1024\"", "\"H\"", "gemm", "(M,N,K)"});
    expectSentence(cli({"best", "--db", m_db, "--kernel", "faulty", "--size", "N=0"}),
                   {"\"N=0\"", "N", "not positive"});
}

void TestRecordsCommands::bestRefusesNamesForAReplayKernel() {
    const Result r = cli({"best", "--db", m_db, "--kernel", "cn_pnpoly", "--device",
                          "NVIDIA GeForce RTX 3090", "--size", "n=20000000"});
    expectSentence(r, {"\"n=20000000\"", "\"cn_pnpoly\"", "without names", "in order"});
    const Result positional = cli({"best", "--db", m_db, "--kernel", "cn_pnpoly", "--device",
                                   "NVIDIA GeForce RTX 3090", "--size", "20000000", "--json"});
    QVERIFY2(positional.exitCode == 0, qPrintable(positional.err));
    QCOMPARE(json(positional)["rule"].toString(), QString("exact"));
}

void TestRecordsCommands::bestAcceptsTheDeviceRecordsListPrints() {
    RecordStore store(m_db.toStdString(), DatabaseAccess::ReadOnly);
    const QString recorded = QString::fromStdString(store.session(2)->device); // "cpu: <CPU>; <compiler>"
    QVERIFY2(recorded.startsWith("cpu: "), qPrintable(recorded));
    // What `records list` prints now, what it printed before (up to the ';'), the whole recorded text.
    for (const QString& device : {hostCpu(), recorded.section(';', 0, 0), recorded}) {
        const Result r =
            cli({"best", "--db", m_db, "--kernel", "faulty", "--size", "64", "--device", device, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.isEmpty(), qPrintable(device + ": " + r.err));
        QCOMPARE(json(r)["rule"].toString(), QString("exact"));
        QCOMPARE(json(r)["device"].toString(), hostCpu());
    }
}

void TestRecordsCommands::bestWarnsOfADeviceWithoutRecords() {
    const Result r =
        cli({"best", "--db", m_db, "--kernel", "faulty", "--size", "64", "--device", "No Such GPU"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("rule: default\n"), qPrintable(r.out));
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(
        r.err.startsWith("warning: no record of kernel \"faulty\" was measured on --device \"No Such GPU\"; "
                         "its records were measured on \"" +
                         hostCpu() + "\"."),
        qPrintable(r.err));
}

void TestRecordsCommands::bestWarnsOfASizeOfAnotherRank() {
    const Result named = cli({"best", "--db", m_db, "--kernel", "gemm", "--size", "1024,1024"});
    QCOMPARE(named.exitCode, 0);
    QVERIFY2(named.out.startsWith("rule: default\n"), qPrintable(named.out));
    QVERIFY2(
        named.err.startsWith("warning: --size \"1024,1024\" has 2 values, but kernel \"gemm\" is recorded at "
                             "sizes of 3 values (M,N,K): no record can match it.\n"),
        qPrintable(named.err));
    const Result faulty = cli({"best", "--db", m_db, "--kernel", "faulty", "--size", "64,1", "--json"});
    QCOMPARE(faulty.exitCode, 0);
    QCOMPARE(json(faulty)["rule"].toString(), QString("default"));
    QCOMPARE(faulty.err,
             QString("warning: --size \"64,1\" has 2 values, but kernel \"faulty\" is recorded at "
                     "sizes of 1 value (N): no record can match it.\n"));
    // Without a default to fall to, the one error sentence says it all (no warning before it).
    const Result replay = cli({"best", "--db", m_db, "--kernel", "cn_pnpoly", "--device",
                               "NVIDIA GeForce RTX 3090", "--size", "4096,4096"});
    expectSentence(replay, {"No record of kernel \"cn_pnpoly\" applies to size [4096, 4096]"});
}

void TestRecordsCommands::importSaysWhatTheFileLacks() {
    const QString db = m_dir.filePath("bare.db");
    const Result r = cli({"import", "--db", db, m_bareCache});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("imported 24 trials (kt-cache) into session"), qPrintable(r.out));
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.startsWith("warning: " + m_bareCache + " gives no device name and no problem size"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("--device NAME --size S"), qPrintable(r.err));
    const Result complete = cli({"import", "--db", db, kKtPnpoly});
    QCOMPARE(complete.exitCode, 0);
    QVERIFY2(complete.err.isEmpty(), qPrintable(complete.err));
    const Result sizeOnly = cli({"import", "--db", db, m_bareCache, "--device", "GPU Q"});
    QCOMPARE(sizeOnly.exitCode, 0);
    QVERIFY2(sizeOnly.err.contains("gives no problem size") && !sizeOnly.err.contains("device name") &&
                 sizeOnly.err.contains("with --size S "),
             qPrintable(sizeOnly.err));
}

void TestRecordsCommands::importTakesDeviceAndSizeFromFlags() {
    const QString db = m_dir.filePath("supplied.db");
    const Result r = cli({"import", "--db", db, m_bareCache, "--device", "GPU Q", "--size", "20000000"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    {
        RecordStore store(db.toStdString(), DatabaseAccess::ReadOnly);
        const std::optional<SessionRecord> session = store.session(1);
        QVERIFY(session);
        QCOMPARE(session->device, std::string("GPU Q"));
        QCOMPARE(session->problem, std::string("[20000000]"));
    }
    const Result best = cli(
        {"best", "--db", db, "--kernel", "cn_pnpoly", "--device", "GPU Q", "--size", "20000000", "--json"});
    QVERIFY2(best.exitCode == 0, qPrintable(best.err));
    QVERIFY2(best.err.isEmpty(), qPrintable(best.err));
    QCOMPARE(json(best)["rule"].toString(), QString("exact"));
    // A size for a catalog kernel is recorded with the kernel's names, as tune records it.
    nlohmann::json cache;
    std::ifstream(m_bareCache.toStdString()) >> cache;
    cache["kernel_name"] = "gemm";
    const QString gemmCache = m_dir.filePath("kt_gemm.json");
    std::ofstream(gemmCache.toStdString()) << cache.dump();
    const Result named = cli({"import", "--db", db, gemmCache, "--device", "GPU Q", "--size", "K=48,M=16"});
    QVERIFY2(named.exitCode == 0, qPrintable(named.err));
    RecordStore store(db.toStdString(), DatabaseAccess::ReadOnly);
    QCOMPARE(nlohmann::json::parse(store.session(2)->problem),
             nlohmann::json::parse(R"({"M": 16, "N": 1024, "K": 48})"));
}

void TestRecordsCommands::importRefusesABadSizeAndAddsNothing() {
    const QString db = m_dir.filePath("refused.db");
    QCOMPARE(cli({"import", "--db", db, kKtPnpoly}).exitCode, 0);
    for (const QString size : {"0", "12,x", "n=3,n=4"})
        expectSentence(cli({"import", "--db", db, m_bareCache, "--size", size}), {"\"" + size + "\""});
    RecordStore store(db.toStdString(), DatabaseAccess::ReadOnly);
    QCOMPARE(store.sessions().size(), std::size_t{1});
}

QTEST_GUILESS_MAIN(TestRecordsCommands)
#include "TestRecordsCommands.moc"
