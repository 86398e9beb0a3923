// Hostile files against every JSON reader: nesting 100,000 deep (a stack overflow before the depth limit),
// wrong types where the runtime header promised std::runtime_error, a cut .gz whose trailer claims 4 GB,
// zero and negative times, and numbers of an import that are not what their key means. Each is refused with
// one sentence naming the file (and the key or the limit), and nothing already recorded is lost.
#include "CliRun.h"
#include "ErrorOf.h"
#include "kernels/KernelSpecReader.h"
#include "datasets/DatasetReader.h"
#include "store/RecordStore.h"
#include "formats/TrialImporter.h"
#include "runtime/tunescope/runtime.h"
#include "space/T1Reader.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>

#include <fstream>
#include <functional>

using namespace ts;

namespace {

using Result = ts::test::CliResult;

constexpr int kDeep = 100000;
const QString kData = TUNESCOPE_TEST_DATA "/";
const QString kLimit = QString::number(kMaxJsonDepth);

std::string deepArray(int depth = kDeep) {
    return std::string(depth, '[') + "1" + std::string(depth, ']');
}

void write(const QString& path, const std::string& bytes) {
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

std::string readBytes(const QString& path) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

const std::string kSession = R"({"type":"session","id":1,"kernel":"k","problem":"[8]","device":"d",)"
                             R"("backend":"replay","status":"completed"})";

std::string trialLine(const std::string& config) {
    return R"({"type":"trial","session":1,"number":0,"config_index":0,"config":)" + config +
           R"(,"status":"ok","time_ms":1.5})";
}

// A Kernel Tuner cache of one parameter whose records have the given times.
std::string kernelTunerCache(const std::string& time, const std::string& times) {
    return R"({"device_name":"d","kernel_name":"k","problem_size":[8],"tune_params_keys":["x"],)"
           R"("tune_params":{"x":[1,2]},"objective":"time","cache":{"1":{"x":1,"time":1.5,"times":[1.5]},)"
           R"("2":{"x":2,"time":)" +
           time + R"(,"times":)" + times + "}}}";
}

// What a records database holds, to check that a refused import changed nothing.
struct Snapshot {
    std::vector<std::int64_t> sessions;
    std::size_t trials = 0;
    bool operator==(const Snapshot&) const = default;
};

Snapshot snapshot(const QString& db) {
    RecordStore store(db.toStdString());
    Snapshot s;
    for (const SessionRecord& session : store.sessions()) {
        s.sessions.push_back(session.id);
        s.trials += store.trials(session.id).size();
    }
    return s;
}

// A database holding one imported dataset.
Snapshot seededDatabase(const QString& db) {
    const Result r = ts::test::runCli({"import", "--db", db, kData + "kt_pnpoly.json"});
    if (r.exitCode != 0)
        qFatal("seeding the database failed: %s", qPrintable(r.err));
    return snapshot(db);
}

// Runs an import expected to fail; checks the exit status, the one sentence and that `db` is unchanged.
void expectRefusedImport(const QString& db, const QString& input, const QStringList& says) {
    const Snapshot before = snapshot(db);
    const Result r = ts::test::runCli({"import", "--db", db, input});
    QVERIFY2(r.exitCode == 1, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QVERIFY2(r.err.startsWith("tunescope-cli: ") && r.err.count('\n') == 1, qPrintable(r.err));
    QVERIFY2(r.err.contains(input), qPrintable(r.err));
    for (const QString& part : says)
        QVERIFY2(r.err.contains(part), qPrintable(r.err));
    QVERIFY(snapshot(db) == before);
}

// The message of the std::runtime_error that loading `path` throws; fails on any other outcome.
QString deploymentError(const QString& path) {
    try {
        tunescope::Deployment::load(path.toStdString());
    } catch (const std::runtime_error& error) {
        return QString::fromStdString(error.what());
    } catch (const std::exception& error) {
        return QString("not a std::runtime_error: ") + error.what();
    }
    return "loaded";
}

} // namespace

class TestHostileFiles : public QObject {
    Q_OBJECT

private slots:
    void deepJsonLinesImportIsRefusedAndTheDatabaseKept();
    void everyJsonReaderRefusesDeepNesting_data();
    void everyJsonReaderRefusesDeepNesting();
    void nestingUpToTheLimitIsRead();
    void objectsWiderThanTheLimitAreRefused();
    void runtimeRefusesADeepDeployment();
    void runtimeReportsEveryWrongTypeAsRuntimeError_data();
    void runtimeReportsEveryWrongTypeAsRuntimeError();
    void cutGzipIsReadWithBoundedMemory_data();
    void cutGzipIsReadWithBoundedMemory();
    void datasetWithZeroOrNegativeTimesIsRefused_data();
    void datasetWithZeroOrNegativeTimesIsRefused();
    void importRefusesNumbersThatAreNotWhatTheKeyMeans_data();
    void importRefusesNumbersThatAreNotWhatTheKeyMeans();
    void cacheEntryThatIsNotARecordIsRefused_data();
    void cacheEntryThatIsNotARecordIsRefused();
    void fuzzFindingsAreRefusedWithOneSentence();
    void numberBeyondDoubleIsOneSentence();
};

void TestHostileFiles::deepJsonLinesImportIsRefusedAndTheDatabaseKept() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    const Snapshot before = seededDatabase(db);
    QVERIFY(before.trials > 0);

    const QString input = dir.filePath("deep.jsonl");
    write(input, kSession + "\n" + trialLine(R"({"x":)" + deepArray() + "}") + "\n");
    expectRefusedImport(db, input, {input + " line 2 ", "more than " + kLimit + " levels deep"});
    QCOMPARE(snapshot(db), before);

    // A deep value in a session's JSON text (stored unparsed, parsed again by every later reader).
    const QString options = dir.filePath("options.jsonl");
    write(options, kSession.substr(0, kSession.size() - 1) + R"(,"options":")" + deepArray() + "\"}\n");
    expectRefusedImport(db, options, {options + " line 1 key \"options\"", kLimit});

    // A deep dataset and a deep CSV config cell.
    const QString cache = dir.filePath("deep-cache.json");
    write(cache, kernelTunerCache("1.5", deepArray()));
    expectRefusedImport(db, cache, {kLimit + " levels deep"});
    const QString csv = dir.filePath("deep.csv");
    write(csv, "config,status,time_ms\n\"" + deepArray() + "\",ok,1\n");
    expectRefusedImport(db, csv, {csv + " column config of line 2", kLimit});
}

void TestHostileFiles::everyJsonReaderRefusesDeepNesting_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("reader");
    const QStringList names{"dataset.json", "kernel.json", "t1.json", "trials.jsonl", "config.csv"};
    for (int reader = 0; reader < names.size(); ++reader) {
        QTest::addRow("%s arrays", qPrintable(names[reader])) << names[reader] << reader;
    }
}

void TestHostileFiles::everyJsonReaderRefusesDeepNesting() {
    QFETCH(QString, name);
    QFETCH(int, reader);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(name);
    const std::string deep = deepArray();
    const std::vector<std::pair<std::string, std::function<void()>>> readers{
        {R"({"tune_params":{"x":[1]},"cache":{"1":{"x":)" + deep + "}}}",
         [&] { (void)readDataset(path.toStdString()); }},
        {R"({"name":"k","description":)" + deep + "}", [&] { (void)readKernelSpec(path.toStdString()); }},
        {R"({"ConfigurationSpace":{"TuningParameters":[{"Name":"x","Values":)" + deep + "}]}}",
         [&] { (void)readT1Space(path.toStdString()); }},
        {kSession + "\n" + trialLine(deep),
         [&] { (void)TrialImporter::parseJsonLines(readBytes(path), path.toStdString()); }},
        {"config,status,time_ms\n\"{\"\"x\"\":" + deep + "}\",ok,1\n",
         [&] { (void)TrialImporter::parseCsv(readBytes(path), path.toStdString()); }},
    };
    write(path, readers[reader].first);
    try {
        readers[reader].second();
        QFAIL("a file nested 100,000 deep was read");
    } catch (const Error& error) {
        const QString message = error.what();
        QVERIFY2(message.contains(QFileInfo(path).fileName()) &&
                     message.contains("more than " + kLimit + " levels deep, the limit."),
                 error.what());
    }
}

void TestHostileFiles::nestingUpToTheLimitIsRead() {
    // The limit counts arrays and objects: kMaxJsonDepth of them parse, one more does not.
    const std::string deepest = deepArray(kMaxJsonDepth);
    QVERIFY(parseBoundedJson(deepest, "limit").is_array());
    QCOMPARE(parseBoundedJson(deepest, "limit").dump(), deepest);
    QVERIFY_THROWS_EXCEPTION(Error, parseBoundedJson(deepArray(kMaxJsonDepth + 1), "limit"));
    QVERIFY(parseBoundedJson("[1,", "limit").is_discarded());
    QVERIFY_THROWS_EXCEPTION(nlohmann::json::parse_error,
                             parseBoundedJson("[1,", "limit", JsonSyntaxErrors::Throw));
}

void TestHostileFiles::objectsWiderThanTheLimitAreRefused() {
    // ordered_json searches keys linearly: 100,000 keys (1 MB) took 30 s to read before the limit.
    std::string wide = "{";
    for (std::size_t i = 0; i <= kMaxJsonObjectKeys; ++i)
        wide += (i == 0 ? "\"k" : ",\"k") + std::to_string(i) + "\":1";
    wide += "}";
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString keys = "more than " + QString::number(kMaxJsonObjectKeys) + " keys";

    const QString dataset = dir.filePath("wide.json");
    write(dataset, R"({"results":[{"configuration":)" + wide + "}]}");
    QVERIFY_THROWS_EXCEPTION(Error, (void)readDataset(dataset.toStdString()));
    try {
        (void)readDataset(dataset.toStdString());
    } catch (const Error& error) {
        QVERIFY2(QString(error.what()) == dataset + " has a JSON object of " + keys + ", the limit.",
                 error.what());
    }
    try {
        (void)TrialImporter::parseJsonLines(kSession + "\n" + trialLine(wide), "wide.jsonl");
        QFAIL("a config of too many keys was read");
    } catch (const Error& error) {
        QVERIFY2(QString(error.what()).startsWith("wide.jsonl line 2 has a JSON object of " + keys),
                 error.what());
    }
    const QString deployment = dir.filePath("wide-deployment.json");
    write(deployment, R"({"entries":[{"kernel":"gemm","config":)" + wide + "}]}");
    const QString message = deploymentError(deployment);
    QVERIFY2(message.startsWith("the deployment file " + deployment + " has an object of " + keys) &&
                 message.contains("under \"entries\""),
             qPrintable(message));
    // One key fewer is read.
    write(deployment, R"({"entries":[{"kernel":"gemm","config":)" + wide.substr(0, wide.rfind(',')) + "}}]}");
    QCOMPARE(tunescope::Deployment::load(deployment.toStdString()).entries().front().config.size(),
             kMaxJsonObjectKeys);
}

void TestHostileFiles::runtimeRefusesADeepDeployment() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("deep-deployment.json");
    write(path, R"({"entries":[{"kernel":"gemm","device":"GPU A","config":{"T":)" + deepArray() + "}}]}");
    const QString message = deploymentError(path);
    QVERIFY2(message.contains("the deployment file " + path) && message.contains("under \"entries\"") &&
                 message.contains("more than " + QString::number(tunescope::kMaxJsonDepth) + " levels deep"),
             qPrintable(message));

    // Up to the limit it loads and answers.
    const int inside = tunescope::kMaxJsonDepth - 4; // root, entries, entry, config
    write(path,
          R"({"entries":[{"kernel":"gemm","device":"GPU A","config":{"T":)" + deepArray(inside) + "}}]}");
    const tunescope::Deployment deployment = tunescope::Deployment::load(path.toStdString());
    QCOMPARE(deployment.lookup({"gemm", {}, "GPU A", ""}).rule, tunescope::Rule::Exact);
}

void TestHostileFiles::runtimeReportsEveryWrongTypeAsRuntimeError_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("key");
    const auto entry = [](const char* fields) {
        return QByteArray(R"({"entries":[{"kernel":"gemm","config":{"T":1})") + fields + "}]}";
    };
    QTest::newRow("numeric device") << entry(R"(,"device":7)") << "\"entries[0].device\"";
    QTest::newRow("numeric architecture") << entry(R"(,"architecture":86)") << "\"entries[0].architecture\"";
    QTest::newRow("text time") << entry(R"(,"time_ms":"fast")") << "\"entries[0].time_ms\"";
    QTest::newRow("text size") << entry(R"(,"problem_size":["n"])") << "\"entries[0].problem_size\"";
    QTest::newRow("huge size") << entry(R"(,"problem_size":[1e300])") << "\"entries[0].problem_size\"";
    QTest::newRow("list config") << QByteArray(R"({"entries":[{"kernel":"gemm","config":[1]}]})")
                                 << "\"entries[0].config\"";
    QTest::newRow("numeric kernel") << QByteArray(R"({"entries":[{"kernel":1,"config":{}}]})")
                                    << "\"entries[0].kernel\"";
    QTest::newRow("entry not an object")
        << QByteArray(R"({"entries":[{"kernel":"k","config":{}},3]})") << "\"entries[1]\"";
    QTest::newRow("defaults a list") << QByteArray(R"({"entries":[],"defaults":[]})") << "\"defaults\"";
    QTest::newRow("default not an object")
        << QByteArray(R"({"entries":[],"defaults":{"gemm":3}})") << "\"defaults.gemm\"";
    QTest::newRow("entries an object") << QByteArray(R"({"entries":{}})") << "\"entries\"";
}

void TestHostileFiles::runtimeReportsEveryWrongTypeAsRuntimeError() {
    QFETCH(QByteArray, content);
    QFETCH(QString, key);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("deployment.json");
    write(path, content.toStdString());
    const QString message = deploymentError(path);
    QVERIFY2(message.startsWith("the deployment file " + path + " is ") && message.contains(key),
             qPrintable(message));
}

void TestHostileFiles::cutGzipIsReadWithBoundedMemory_data() {
    QTest::addColumn<bool>("cut");
    QTest::addColumn<QString>("says");
    QTest::newRow("cut, trailer claims 4 GB") << true << "is a truncated gzip file";
    QTest::newRow("whole, trailer claims 4 GB") << false << "is a corrupt gzip file";
}

void TestHostileFiles::cutGzipIsReadWithBoundedMemory() {
    QFETCH(bool, cut);
    QFETCH(QString, says);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::string gz = readBytes(kData + "kt_convolution.json.gz");
    QVERIFY(gz.size() > 1000);
    if (cut)
        gz.resize(gz.size() / 2);
    // The last four bytes of a gzip member are its uncompressed size modulo 2^32: claim 4 GB.
    gz.replace(gz.size() - 4, 4, std::string("\xf0\xff\xff\xff", 4));
    const QString path = dir.filePath("cut.json.gz");
    write(path, gz);

    // The real CLI in a child whose address space is capped far below 4 GB: trusting the trailer would
    // end in an allocation failure (internal error, exit 2) instead of the sentence.
    QProcess process;
    process.setChildProcessModifier([] {
        constexpr rlim_t kCap = rlim_t{1} << 30;
        const rlimit limit{kCap, kCap};
        if (setrlimit(RLIMIT_AS, &limit) != 0)
            _exit(99);
    });
    process.start(TUNESCOPE_CLI, {"info", path});
    QVERIFY(process.waitForFinished(120000));
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 1, qPrintable(QString("exit %1: %2").arg(process.exitCode()).arg(err)));
    QVERIFY2(err.contains(path + " " + says), qPrintable(err));

    // The same CLI under the same cap reads the intact file.
    QProcess intact;
    intact.setChildProcessModifier([] {
        constexpr rlim_t kCap = rlim_t{1} << 30;
        const rlimit limit{kCap, kCap};
        if (setrlimit(RLIMIT_AS, &limit) != 0)
            _exit(99);
    });
    intact.start(TUNESCOPE_CLI, {"info", kData + "kt_convolution.json.gz"});
    QVERIFY(intact.waitForFinished(120000));
    QVERIFY2(intact.exitCode() == 0, intact.readAllStandardError().constData());
}

void TestHostileFiles::datasetWithZeroOrNegativeTimesIsRefused_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("says");
    QTest::newRow("kernel tuner zero time")
        << QByteArray::fromStdString(kernelTunerCache("0", "[0]")) << "cache record \"2\" with time 0,";
    QTest::newRow("kernel tuner negative time")
        << QByteArray::fromStdString(kernelTunerCache("-1.5", "[1.5]"))
        << "cache record \"2\" with time -1.5,";
    QTest::newRow("kernel tuner negative sample")
        << QByteArray::fromStdString(kernelTunerCache("1.5", "[1.5,-2]"))
        << "cache record \"2\" with sample -2,";
    QTest::newRow("t4 zero time") << QByteArray(
                                         R"({"results":[{"configuration":{"x":1},"invalidity":"correct",)"
                                         R"("measurements":[{"name":"time","value":0}]}]})")
                                  << "result 0 with time 0,";
    QTest::newRow("t4 negative runtime")
        << QByteArray(
               R"({"results":[{"configuration":{"x":1},"invalidity":"correct","times":{"runtimes":[-3]},)"
               R"("measurements":[{"name":"time","value":2}]}]})")
        << "result 0 with sample -3,";
    QTest::newRow("ktt negative duration")
        << QByteArray(
               R"({"Results":[{"KernelName":"k","Configuration":[{"Name":"x","Value":1}],"Status":"Ok",)"
               R"("TotalDuration":-5}]})")
        << "result 0 with time -0.005,";
    QTest::newRow("ktt no duration")
        << QByteArray(
               R"({"Results":[{"KernelName":"k","Configuration":[{"Name":"x","Value":1}],"Status":"Ok"}]})")
        << "result 0 with time 0,";
}

void TestHostileFiles::datasetWithZeroOrNegativeTimesIsRefused() {
    QFETCH(QByteArray, content);
    QFETCH(QString, says);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    seededDatabase(db);
    const QString path = dir.filePath("times.json");
    write(path, content.toStdString());
    expectRefusedImport(db, path, {path + " has " + says, "which is not a positive time."});
    const Result info = ts::test::runCli({"info", path});
    QCOMPARE(info.exitCode, 1);
    QVERIFY2(info.err.contains(path + " has " + says), qPrintable(info.err));
}

// Found by FuzzDatasetReader: a cache entry that is an array (or a scalar followed by one) was read as the
// fields of a record that did not exist (SIGSEGV on the first file, fields given to the wrong record after).
void TestHostileFiles::cacheEntryThatIsNotARecordIsRefused_data() {
    QTest::addColumn<QByteArray>("cache");
    QTest::addColumn<QString>("key");
    QTest::newRow("array first") << QByteArray(
                                        R"({"a":[1.5,2.5,"x",[3.5,{"time":1}]],"1":{"x":1,"time":1.5}})")
                                 << "a";
    QTest::newRow("scalar, then array")
        << QByteArray(R"({"s":14,"times":[11.4,11.5],"1":{"x":1,"time":1.5,"times":[1.5]}})") << "s";
    QTest::newRow("array after a record")
        << QByteArray(R"({"1":{"x":1,"time":1.5,"times":[1.5]},"b":[[2.5],{"times":[0.5]}]})") << "b";
}

void TestHostileFiles::cacheEntryThatIsNotARecordIsRefused() {
    QFETCH(QByteArray, cache);
    QFETCH(QString, key);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("entries.json");
    write(path, R"({"device_name":"d","kernel_name":"k","problem_size":[8],"tune_params_keys":["x"],)"
                R"("tune_params":{"x":[1,2]},"objective":"time","cache":)" +
                    cache.toStdString() + "}");
    const Result info = ts::test::runCli({"info", path});
    QCOMPARE(info.exitCode, 1);
    QCOMPARE(info.err.trimmed(),
             "tunescope-cli: " + path + " has cache record \"" + key + "\" that is not an object.");
}

// Every input a fuzz campaign found a crash with, kept in tests/data/fuzz/<target>/: each is now one sentence
// naming the file, exit 1.
void TestHostileFiles::fuzzFindingsAreRefusedWithOneSentence() {
    const QDir folder(kData + "fuzz/FuzzDatasetReader");
    const QStringList files = folder.entryList(QDir::Files);
    QVERIFY(files.size() >= 4);
    for (const QString& file : files) {
        const QString path = folder.filePath(file);
        const Result info = ts::test::runCli({"info", path});
        QCOMPARE(info.exitCode, 1);
        QVERIFY2(info.err.startsWith("tunescope-cli: " + path + " ") && info.err.trimmed().count('\n') == 0,
                 qPrintable(info.err));
    }
}

// Found by FuzzT1Reader: a number beyond double's range escaped the readers as nlohmann's out_of_range.
void TestHostileFiles::numberBeyondDoubleIsOneSentence() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("huge.json");
    write(path, R"({"General": {"BenchmarkName": "x"}, "Limit": 24e44444})");
    const std::string t1 = path.toStdString();
    const std::string message = ts::test::errorOf([&] { (void)readT1Space(t1); });
    QVERIFY2(message.find("huge.json") != std::string::npos &&
                 message.find("number overflow") != std::string::npos,
             message.c_str());
    const std::string spec = ts::test::errorOf([&] { (void)readKernelSpec(t1); });
    QVERIFY2(spec.find("huge.json") != std::string::npos && spec.find("number overflow") != std::string::npos,
             spec.c_str());
}

void TestHostileFiles::importRefusesNumbersThatAreNotWhatTheKeyMeans_data() {
    QTest::addColumn<QByteArray>("lines");
    QTest::addColumn<QString>("says");
    const std::string open = kSession.substr(0, kSession.size() - 1);
    const auto session = [&](const char* fields) { return QByteArray::fromStdString(open + fields + "}\n"); };
    const auto trial = [&](const char* fields) {
        return QByteArray::fromStdString(kSession + "\n" +
                                         R"({"type":"trial","session":1,"config":{"x":1},"status":"ok")" +
                                         fields + "}\n");
    };
    QTest::newRow("seed text")
        << session(R"(,"seed":"abc")")
        << "a session on line 1 whose \"seed\" is \"abc\", which is not a non-negative integer.";
    QTest::newRow("seed negative") << session(R"(,"seed":-3)") << "whose \"seed\" is -3,";
    QTest::newRow("seed fraction") << session(R"(,"seed":1.5)") << "whose \"seed\" is 1.5,";
    QTest::newRow("budget 1e300")
        << session(R"(,"budget":1e300)")
        << "a session on line 1 whose \"budget\" is 1e+300, which is not a non-negative integer.";
    QTest::newRow("budget text") << session(R"(,"budget":"10")") << "whose \"budget\" is \"10\",";
    QTest::newRow("started text") << session(R"(,"started_at":"now")") << "whose \"started_at\" is \"now\",";
    QTest::newRow("device_info not json")
        << session(R"(,"device_info":"{oops")") << "whose \"device_info\" is not valid JSON";
    QTest::newRow("trial number negative")
        << trial(R"(,"number":-1,"config_index":0,"time_ms":1)") << "whose \"number\" is -1,";
    QTest::newRow("config index negative")
        << trial(R"(,"number":0,"config_index":-2,"time_ms":1)") << "whose \"config_index\" is -2,";
    QTest::newRow("time text") << trial(R"(,"number":0,"config_index":0,"time_ms":"1.5")")
                               << "whose \"time_ms\" is \"1.5\", which is not a number.";
    QTest::newRow("ok time zero") << trial(R"(,"number":0,"config_index":0,"time_ms":0)")
                                  << "whose \"time_ms\" is 0, which is not a positive number.";
    QTest::newRow("sample negative") << trial(R"(,"number":0,"config_index":0,"time_ms":1,"samples":[1,-1])")
                                     << "whose \"samples\" is -1,";
    QTest::newRow("batch fraction") << trial(R"(,"number":0,"config_index":0,"time_ms":1,"batch":0.5)")
                                    << "whose \"batch\" is 0.5,";
    QTest::newRow("metric text")
        << trial(R"(,"number":0,"config_index":0,"time_ms":1,"metrics":{"gflops":"many"})")
        << "whose \"metrics.gflops\" is \"many\",";
}

void TestHostileFiles::importRefusesNumbersThatAreNotWhatTheKeyMeans() {
    QFETCH(QByteArray, lines);
    QFETCH(QString, says);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    seededDatabase(db);
    const QString path = dir.filePath("numbers.jsonl");
    write(path, lines.toStdString());
    expectRefusedImport(db, path, {path + " has ", says});
}

QTEST_APPLESS_MAIN(TestHostileFiles)
#include "TestHostileFiles.moc"
