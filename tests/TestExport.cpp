// tunescope-cli export on a database holding replay and CPU sessions: the deployment JSON picks the best
// config per (kernel, problem, device) with its provenance, the generated header compiles, and every trial
// format imports back to the same trials.
#include "CliRun.h"
#include "deploy/DeploymentBuilder.h"
#include "hardware/DeviceFingerprint.h"
#include "store/RecordStore.h"
#include "util/SourceHash.h"

#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

using namespace ts;
using Json = nlohmann::ordered_json;

namespace {

using Result = ts::test::CliResult;

Result cli(const QStringList& arguments,
           const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    return ts::test::runCli(arguments, environment);
}

const QString kDatasets = TUNESCOPE_RESOURCES "/datasets/";

Json readJson(const QString& path) {
    std::ifstream in(path.toStdString());
    return Json::parse(in);
}

// What makes two trials the same measurement, whatever the format carried.
struct Measured {
    std::string status;
    double objective = 0;
    std::vector<double> samples;
    bool operator==(const Measured&) const = default;
};

std::map<std::string, Measured> byConfig(const std::vector<StoredTrial>& trials) {
    std::map<std::string, Measured> result;
    for (const StoredTrial& t : trials)
        result[t.config] = {t.status, t.objective, t.samples};
    return result;
}

bool sameNumber(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

// Every stored field but the session id.
QString differences(const StoredTrial& a, const StoredTrial& b) {
    QStringList fields;
    const auto check = [&](bool same, const char* name) {
        if (!same)
            fields << name;
    };
    check(a.number == b.number, "number");
    check(a.index == b.index, "config_index");
    check(a.config == b.config, "config");
    check(a.status == b.status, "status");
    check(sameNumber(a.objective, b.objective), "objective");
    check(a.samples == b.samples, "samples");
    check(sameNumber(a.median, b.median) && sameNumber(a.min, b.min) && sameNumber(a.mean, b.mean) &&
              sameNumber(a.stdev, b.stdev) && sameNumber(a.cv, b.cv),
          "statistics");
    check(a.predicted == b.predicted, "predicted");
    check(sameNumber(a.compileMs, b.compileMs), "compile_ms");
    check(a.log == b.log, "log");
    check(a.batch == b.batch, "batch");
    check(sameNumber(a.elapsedS, b.elapsedS), "elapsed_s");
    check(sameNumber(a.finishedAt, b.finishedAt), "finished_at");
    check(a.metrics == b.metrics, "metrics");
    return fields.join(", ");
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void deploymentHasTheBestConfigPerGroupWithProvenance();
    void generatedHeaderOfTheRecordsCompiles();
    void trialFormatsImportBackToTheSameTrials_data();
    void trialFormatsImportBackToTheSameTrials();
    void singleSessionFormatsRoundTrip();
    void mergedSessionsMakeOneDataset();
    void badExportsFailWithOneSentence_data();
    void badExportsFailWithOneSentence();

private:
    QTemporaryDir m_dir;
    QString m_db;
    bool m_hasCpu = false;
};

void TestExport::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath("records.db");
    const QList<QStringList> sessions{
        {"--dataset", kDatasets + "pnpoly_RTX_3090.json.gz", "--strategy", "random_sample", "--budget", "40"},
        {"--dataset", kDatasets + "gemm_clblast_RTX_3090.json.gz", "--strategy", "random_sample", "--budget",
         "40", "--space", "product"},
        {"--dataset", kDatasets + "convolution_milo_A100.json.gz", "--strategy", "brute_force", "--budget",
         "30"},
        {"--dataset", kDatasets + "pnpoly_RTX_3090.json.gz", "--strategy", "random_sample", "--budget", "20",
         "--seed", "2"},
    };
    for (const QStringList& arguments : sessions) {
        const Result r = cli(QStringList{"tune", "--db", m_db} + arguments);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("TUNESCOPE_CACHE_DIR", m_dir.filePath("builds"));
    const Result cpu = cli({"tune", "--db", m_db, "--kernel", "gemm", "--backend", "cpu", "--size",
                            "16,16,16", "--strategy", "random_sample", "--budget", "2"},
                           environment);
    m_hasCpu = cpu.exitCode == 0;
    if (!m_hasCpu)
        qWarning("no CPU session (the CPU backend failed: %s)", qPrintable(cpu.err.trimmed()));
}

void TestExport::deploymentHasTheBestConfigPerGroupWithProvenance() {
    const QString out = m_dir.filePath("deployment.json");
    const Result r = cli({"export", "--db", m_db, "--format", "deploy", "-o", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // GPU records shipped from this CPU-only machine: bound to their hardware, so the export says so.
    QVERIFY2(r.err.contains("warning:") && r.err.contains("NVIDIA GeForce RTX 3090 (sm_86)") &&
                 r.err.contains("NVIDIA A100-PCIE-40GB (sm_80)"),
             qPrintable(r.err));
    const Json deployment = readJson(out);
    QCOMPARE(deployment.value("format", ""), std::string("tunescope-deployment"));
    const Json& entries = deployment["entries"];
    QCOMPARE(entries.size(), std::size_t{m_hasCpu ? 4u : 3u});

    RecordStore store(m_db.toStdString());
    const std::vector<SessionRecord> sessions = store.sessions();
    const QRegularExpression isoDate(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$)");
    for (const Json& entry : entries) {
        // Recompute the best of the entry's group from the database.
        double best = INFINITY;
        std::string bestConfig;
        std::int64_t evaluations = 0;
        const SessionRecord* bestSession = nullptr;
        for (const SessionRecord& s : sessions) {
            const std::string device =
                s.backend == "cpu" ? DeviceFingerprint::fromJson(s.deviceInfo).name : s.device;
            if (s.kernel != entry["kernel"].get<std::string>() ||
                device != entry["device"].get<std::string>() ||
                DeploymentBuilder::problemShape(s.problem) != entry["problem_size"])
                continue;
            for (const StoredTrial& t : store.trials(s.id)) {
                ++evaluations;
                if (t.status == "ok" && t.objective < best) {
                    best = t.objective;
                    bestConfig = t.config;
                    bestSession = &s;
                }
            }
        }
        QVERIFY(bestSession != nullptr);
        QCOMPARE(entry["time_ms"].get<double>(), best);
        QCOMPARE(entry["config"].dump(), bestConfig);
        QCOMPARE(entry["evaluations"].get<std::int64_t>(), evaluations);
        QCOMPARE(entry["session"].get<std::int64_t>(), bestSession->id);
        QCOMPARE(entry["strategy"].get<std::string>(), bestSession->strategy);
        QCOMPARE(entry["tool_version"].get<std::string>(), std::string(TUNESCOPE_VERSION));
        QVERIFY(isoDate.match(QString::fromStdString(entry["date"].get<std::string>())).hasMatch());
        QVERIFY(entry["statistics"]["samples"].get<std::size_t>() > 0);
        QVERIFY(entry["statistics"]["median_ms"].is_number());
        const Json& fingerprint = entry["device_fingerprint"];
        if (bestSession->backend == "replay") {
            QCOMPARE(entry["source_hash"].get<std::string>(), SourceHash::ofFile(bestSession->dataset));
            QCOMPARE(fingerprint["kind"].get<std::string>(), std::string("gpu"));
            QCOMPARE(entry["architecture"].get<std::string>(),
                     std::string(entry["device"] == "NVIDIA A100-PCIE-40GB" ? "sm_80" : "sm_86"));
        } else {
            QCOMPARE(fingerprint["kind"].get<std::string>(), std::string("cpu"));
            QVERIFY(!fingerprint["compiler"].get<std::string>().empty());
            QVERIFY(!fingerprint["architecture"].get<std::string>().empty());
            QVERIFY(entry["source_hash"].get<std::string>().starts_with("fnv1a64:"));
            QVERIFY(entry["metrics"].contains("gflops"));
        }
    }
    // Both pnpoly sessions fed one entry.
    for (const Json& entry : entries)
        if (entry["kernel"] == "cn_pnpoly")
            QCOMPARE(entry["sessions"].size(), std::size_t{2});
}

void TestExport::generatedHeaderOfTheRecordsCompiles() {
    const QString compiler = QStandardPaths::findExecutable("g++");
    if (compiler.isEmpty())
        QSKIP("g++ is not on PATH");
    const QString header = m_dir.filePath("tuned.h");
    const Result r =
        cli({"export", "--db", m_db, "--format", "header", "--namespace", "records", "-o", header});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString main = m_dir.filePath("use_header.cpp");
    std::ofstream(main.toStdString()) << R"(#include "tuned.h"
#include <cstdio>
int main() {
    const std::int64_t shape[] = {4096, 4096};
    const records::Answer exact = records::lookup("convolution_kernel", shape, 2, "NVIDIA A100-PCIE-40GB");
    const records::Answer sibling = records::lookup("convolution_kernel", shape, 2, "NVIDIA A100-SXM4-80GB", "sm_80");
    const std::int64_t near[] = {20000};
    const records::Answer nearest = records::lookup("cn_pnpoly", near, 1, "NVIDIA GeForce RTX 3090");
    std::printf("%d %d %d %zu\n", static_cast<int>(exact.rule), static_cast<int>(sibling.rule),
                static_cast<int>(nearest.rule), exact.count);
}
)";
    QProcess build;
    build.start(compiler,
                {"-std=c++17", "-Wall", "-Wextra", "-Werror", main, "-o", m_dir.filePath("use_header")});
    QVERIFY(build.waitForFinished(180000));
    QVERIFY2(build.exitCode() == 0, build.readAllStandardError().constData());
    QProcess run;
    run.start(m_dir.filePath("use_header"));
    QVERIFY(run.waitForFinished(30000));
    // exact, architecture, nearest_shape; the config has one value per parameter of the session.
    std::size_t parameters = 0;
    for (const SessionRecord& session : RecordStore(m_db.toStdString()).sessions())
        if (session.kernel == "convolution_kernel")
            parameters = Json::parse(session.parameters).size();
    QCOMPARE(QString::fromUtf8(run.readAllStandardOutput()), QString("0 1 2 %1\n").arg(parameters));
}

void TestExport::trialFormatsImportBackToTheSameTrials_data() {
    QTest::addColumn<QString>("format");
    QTest::newRow("jsonl") << "jsonl";
    QTest::newRow("csv") << "csv";
}

void TestExport::trialFormatsImportBackToTheSameTrials() {
    QFETCH(QString, format);
    const QString file = m_dir.filePath("trials." + format);
    const Result r = cli({"export", "--db", m_db, "--format", format, "-o", file});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString copy = m_dir.filePath("imported-" + format + ".db");
    const Result imported = cli({"import", "--db", copy, file});
    QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));

    RecordStore original(m_db.toStdString());
    RecordStore back(copy.toStdString());
    const std::vector<SessionRecord> a = original.sessions();
    const std::vector<SessionRecord> b = back.sessions();
    QCOMPARE(b.size(), a.size());
    std::size_t total = 0;
    for (std::size_t s = 0; s < a.size(); ++s) {
        QCOMPARE(b[s].kernel, a[s].kernel);
        QCOMPARE(b[s].device, a[s].device);
        QCOMPARE(b[s].problem, a[s].problem);
        QCOMPARE(b[s].backend, a[s].backend);
        QCOMPARE(b[s].strategy, a[s].strategy);
        if (format == "jsonl") { // lossless: the session too
            QCOMPARE(b[s].seed, a[s].seed);
            QCOMPARE(b[s].options, a[s].options);
            QCOMPARE(b[s].budget, a[s].budget);
            QCOMPARE(b[s].settings, a[s].settings);
            QCOMPARE(b[s].sourceHash, a[s].sourceHash);
            QCOMPARE(b[s].deviceInfo, a[s].deviceInfo);
            QCOMPARE(b[s].startedAt, a[s].startedAt);
            QCOMPARE(b[s].endedAt, a[s].endedAt);
        }
        const std::vector<StoredTrial> ta = original.trials(a[s].id);
        const std::vector<StoredTrial> tb = back.trials(b[s].id);
        QCOMPARE(tb.size(), ta.size());
        for (std::size_t i = 0; i < ta.size(); ++i) {
            const QString diff = differences(ta[i], tb[i]);
            QVERIFY2(diff.isEmpty(),
                     qPrintable(QString("session %1 trial %2 differs in %3").arg(a[s].id).arg(i).arg(diff)));
        }
        total += ta.size();
    }
    QVERIFY(total >= 130);
    QVERIFY2(imported.out.contains(QString("imported %1 trials (%2)").arg(total).arg(format)),
             qPrintable(imported.out));
}

void TestExport::singleSessionFormatsRoundTrip() {
    RecordStore original(m_db.toStdString());
    const std::vector<SessionRecord> sessions = original.sessions();
    QCOMPARE(sessions.size(), std::size_t{m_hasCpu ? 5u : 4u}); // the sessions initTestCase tuned
    for (const SessionRecord& session : sessions) {
        for (const QString format : {"kt-cache", "t4"}) {
            const QString file = m_dir.filePath(QString("session%1.%2.json").arg(session.id).arg(format));
            const Result r = cli({"export", "--db", m_db, "--session", QString::number(session.id),
                                  "--format", format, "-o", file});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            const QString copy = m_dir.filePath(QString("session%1.%2.db").arg(session.id).arg(format));
            const Result imported = cli({"import", "--db", copy, file});
            QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
            RecordStore back(copy.toStdString());
            QCOMPARE(back.sessions().size(), std::size_t{1});
            const SessionRecord read = back.sessions().front();
            QCOMPARE(read.kernel, session.kernel);
            QCOMPARE(read.device, session.device);
            std::map<std::string, Measured> expected = byConfig(original.trials(session.id));
            // Kernel Tuner has no status of its own for these two.
            if (format == "kt-cache")
                for (auto& [config, measured] : expected)
                    if (measured.status == "timeout" || measured.status == "wrong_result")
                        measured.status = "runtime_failed";
            for (auto& [config, measured] : expected)
                if (measured.status != "ok")
                    measured.samples.clear(); // failed configs carry no samples in either format
            const std::map<std::string, Measured> got = byConfig(back.trials(read.id));
            QVERIFY(!expected.empty());
            QCOMPARE(got.size(), expected.size());
            for (const auto& [config, measured] : expected) {
                QVERIFY2(got.count(config), config.c_str());
                QVERIFY2(got.at(config) == measured, (format.toStdString() + " " + config).c_str());
            }
        }
    }
}

// Sessions of one kernel, size and device (a uniform sample and tuning runs) exported as one Kernel Tuner
// cache (what scripts/gpu-check makes its dataset with): every config once, its first session's trial kept,
// the device fingerprint carried; it reads back as a dataset of the union.
void TestExport::mergedSessionsMakeOneDataset() {
    QTemporaryDir dir;
    const QString db = dir.filePath("two.db"), out = dir.filePath("merged.json");
    const QString dataset = kDatasets + "pnpoly_RTX_3090.json.gz";
    for (const char* seed : {"1", "2"}) {
        const Result r = cli({"tune", "--db", db, "--dataset", dataset, "--strategy", "random_sample",
                              "--budget", "30", "--seed", seed});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
    const Result r = cli({"export", "--db", db, "--format", "kt-cache", "--merge", "-o", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    RecordStore store(db.toStdString(), DatabaseAccess::ReadOnly);
    const std::vector<SessionRecord> sessions = store.sessions();
    QCOMPARE(sessions.size(), std::size_t{2});
    std::map<std::string, double> first; // config JSON -> objective, first session wins
    for (const SessionRecord& session : sessions)
        for (const StoredTrial& t : store.trials(session.id))
            first.emplace(t.config, t.status == "ok" ? t.objective : -1.0);
    QVERIFY(first.size() > 30 && first.size() < 60); // the two samples overlap in part
    const Json cache = readJson(out);
    QCOMPARE(cache["cache"].size(), first.size());
    QVERIFY(cache["device_fingerprint"].is_object());
    const Json names = cache["tune_params_keys"];
    for (const auto& [config, objective] : first) {
        const Json values = Json::parse(config);
        std::string key;
        for (const Json& name : names) {
            if (!key.empty())
                key += ',';
            key += values[name.get<std::string>()].dump();
        }
        QVERIFY2(cache["cache"].contains(key), key.c_str());
        if (objective >= 0)
            QCOMPARE(cache["cache"][key]["time"].get<double>(), objective);
    }
    const Result info = cli({"info", out});
    QVERIFY2(info.exitCode == 0, qPrintable(info.err));
    QVERIFY2(info.out.contains(QString("configs in file %1").arg(first.size())), qPrintable(info.out));
}

void TestExport::badExportsFailWithOneSentence_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("names");
    const QString db = m_dir.filePath("records.db");
    QTest::newRow("unknown format") << QStringList{"export", "--db", db, "--format", "yaml", "-o", "x"}
                                    << "yaml";
    QTest::newRow("missing database")
        << QStringList{"export", "--db", "/nonexistent/r.db", "--format", "deploy", "-o", "x"}
        << "/nonexistent/r.db";
    QTest::newRow("kt-cache of many sessions")
        << QStringList{"export", "--db", db, "--format", "kt-cache", "-o", m_dir.filePath("x.json")}
        << "--session";
    QTest::newRow("absent session") << QStringList{"export",   "--db",  db,   "--session",        "99",
                                                   "--format", "jsonl", "-o", m_dir.filePath("x")}
                                    << "99";
    QTest::newRow("unwritable output")
        << QStringList{"export", "--db", db, "--format", "csv", "-o", "/nonexistent/dir/out.csv"}
        << "/nonexistent/dir/out.csv";
    QTest::newRow("merge of sessions that differ")
        << QStringList{"export",   "--db",    db,   "--format",
                       "kt-cache", "--merge", "-o", m_dir.filePath("x.json")}
        << "differs from session 1 in its";
    QTest::newRow("merge of another format")
        << QStringList{"export", "--db", db, "--format", "t4", "--merge", "-o", m_dir.filePath("x.json")}
        << "--merge makes one Kernel Tuner cache";
    QTest::newRow("bad namespace") << QStringList{"export",   "--db",   db,
                                                  "--format", "header", "--namespace",
                                                  "9lives",   "-o",     m_dir.filePath("x.h")}
                                   << "9lives";
}

void TestExport::badExportsFailWithOneSentence() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, names);
    const Result r = cli(arguments);
    QCOMPARE(r.exitCode, 1);
    QStringList lines = r.err.trimmed().split('\n');
    lines.removeIf([](const QString& line) { return line.startsWith("warning:"); });
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines[0].startsWith("tunescope-cli: ") && lines[0].contains(names), qPrintable(lines[0]));
}

QTEST_APPLESS_MAIN(TestExport)
#include "TestExport.moc"
