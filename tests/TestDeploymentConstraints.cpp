// The nearest_shape rule answers only configs that satisfy the kernel's constraints at the asked shape: the
// deployment carries each entry's size names and constraints, tunescope/runtime.h and the generated header
// evaluate them (one table of expressions, answered both ways), hostile constraint text is refused or
// skipped cleanly, and `best` and `export` over a records database follow the same rule. Also the device
// helpers of runtime.h against what the records write.
#include "CliRun.h"
#include "hardware/CpuInfo.h"
#include "hardware/GpuSpec.h"
#include "deploy/DeploymentBuilder.h"
#include "deploy/DeploymentHeader.h"
#include "hardware/DeviceFingerprint.h"
#include "store/RecordStore.h"
#include "runtime/tunescope/runtime.h"
#include "util/Error.h"

#include "HostCompilers.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <fmt/format.h>

#include <fstream>
#include <sstream>

using namespace ts;
using Json = nlohmann::ordered_json;

namespace {

// gemm's cuda constraint over sizes and the vector width, and cpu's cap of the block by the size.
const Json kGemmConstraints = Json::array({"K % VEC == 0 and N % VEC == 0", "MC <= max(M, 32)"});
const Json kSizeNames = Json::array({"M", "N", "K"});

Json entry(const char* kernel, std::vector<std::int64_t> shape, double timeMs, Json config,
           const Json& constraints = kGemmConstraints, const char* device = "GPU A") {
    return {{"kernel", kernel},         {"problem_size", shape},       {"device", device},
            {"architecture", "sm_86"},  {"config", std::move(config)}, {"time_ms", timeMs},
            {"size_names", kSizeNames}, {"constraints", constraints}};
}

// The nearest entry to [1000, 1000, 1002] is the 1024 one (VEC 4: 1002 % 4 != 0); the next, 512 (VEC 2),
// holds; the farthest, 4096 (VEC 1), holds too but is farther.
Json fallbackDeployment() {
    return {{"format", "tunescope-deployment"},
            {"version", 1},
            {"defaults", {{"gemm", {{"VEC", 1}, {"MC", 32}, {"T", 0}}}}},
            {"entries",
             Json::array({entry("gemm", {1024, 1024, 1024}, 1.0, {{"VEC", 4}, {"MC", 64}, {"T", 1}}),
                          entry("gemm", {512, 512, 512}, 2.0, {{"VEC", 2}, {"MC", 32}, {"T", 2}}),
                          entry("gemm", {4096, 4096, 4096}, 3.0, {{"VEC", 1}, {"MC", 128}, {"T", 3}})})}};
}

struct Lookup {
    std::vector<std::int64_t> shape;
    const char* rule;
    int t;               // the answer's T, -1 for none
    std::size_t skipped; // entries passed over
};

const std::vector<Lookup> kLookups{
    {{1024, 1024, 1024}, "exact", 1, 0},
    {{1000, 1000, 1002}, "nearest_shape", 2, 1}, // 1024 breaks K % VEC; 512 holds
    {{1000, 1000, 1000}, "nearest_shape", 1, 0}, // 1024 holds
    {{31, 4000, 4000}, "nearest_shape", 2, 1},   // 1024's MC 64 > max(31, 32); 512's MC 32 holds
    {{1001, 1001, 1001}, "nearest_shape", 3, 2}, // VEC 4 and 2 break; the farthest, VEC 1, holds
    {{16, 1001, 1001}, "default", 0, 3},         // ... and its MC 128 > max(16, 32)
    {{1000, 1000}, "default", 0, 0},             // another rank: no nearest shape at all
};

// A constraint, evaluated for the config kConfig at M=100, N=200, K=300: 1 holds, 0 is false, -1 cannot be
// evaluated (the entry is skipped all the same). Expected values are Python's.
struct Expression {
    const char* text;
    int holds;
};

const Json kConfig{{"MC", 64}, {"MR", 4}, {"NR", 16}, {"VEC", 8}, {"L", "nchw"}, {"F", 1.5}, {"P", true}};

const std::vector<Expression> kExpressions{
    {"MC % MR == 0", 1},
    {"8 <= MR * (NR // VEC) <= 16", 1},
    {"K % VEC == 0 and N % VEC == 0", 0},
    {"MC <= max(M, 32) < N", 1},
    {"1 < 2 > 3", 0},
    {"L == 'nchw' and VEC in [4, 8]", 1},
    {"VEC not in [4, 8] or 'ch' in L", 1},
    {"-7 // 2 == -4 and -7 % 2 == 1 and 7.5 // 2 == 3.0 and -7.5 % 2 == 0.5", 1},
    {"2 ** 64 > 9223372036854775807 and 2 ** -1 == 0.5", 1},
    {"(M if P else N) == 100", 1},
    {"abs(-3) + int(3.9) + int(-3.9) == 3 and float(2) / 4 == 0.5 and bool('') == False", 1},
    {"F * 2 == 3 and 7 / 2 == 3.5", 1},
    {"not (M or 0) or min(M, N, K) == 100", 1},
    {"'b' < 'a'", 0},
    {"P + P == 2", 1},
    {"0x10 + 1_000 == 1016", 1},
    {"99999999999999999999 > 9223372036854775807", 1},
    {"(M > 50) + (N > 50) == 2", 1},
    {"L in 'xnchwx' and 'z' not in L", 1},
    {"9223372036854775807 + 1 == 9223372036854775808", 1},
    {"min(N, K, M) + max(3, 2.5) == 103", 1},
    {"-2 ** 2 == -4 and 2 ** 3 ** 2 == 512", 1},
    {"not M == 100 == M", 0},
    // Huge numbers: floats past 64 bits, never a hang or a crash.
    {"10 ** 10 ** 10 > 1e308 and 1e999 > 1 and 0 * 1e999 != 0 * 1e999", 1},
    {"(-9223372036854775807 - 1) // -1 > 0 and -9223372036854775807 - 1 == -(2 ** 63)", 1},
    // Text that must stay text in a generated header: quotes, a backslash, a trigraph, a comment end,
    // preprocessor lines.
    {"L != '\"; } #error x' and L != '?\?=' and L != '*/ \\\\' and L != '\n#error y\n'", 1},
    // Errors: an unknown name, divisions by zero, type errors.
    {"NOPE > 1", -1},
    {"1 // (M - M) == 0", -1},
    {"M % 0 == 0", -1},
    {"0 ** -1 == 0", -1},
    {"'a' + 1 == 1", -1},
    {"M < 'a'", -1},
};

Json expressionDeployment() {
    Json entries = Json::array();
    for (std::size_t i = 0; i < kExpressions.size(); ++i)
        entries.push_back(entry(fmt::format("e{}", i).c_str(), {1, 1, 1}, 1.0, kConfig,
                                Json::array({kExpressions[i].text})));
    return {{"format", "tunescope-deployment"}, {"version", 1}, {"entries", entries}};
}

using ts::test::compilers;
using ts::test::runProcess;

// Compiles `program` with `header` next to it with every compiler found, runs it, returns what it printed
// (the same for every compiler, else the test fails).
QString compileAndRun(const QString& header, const std::string& program) {
    QTemporaryDir dir;
    if (!dir.isValid())
        return "no temporary directory";
    std::ofstream(dir.filePath("tuned.h").toStdString()) << header.toStdString();
    std::ofstream(dir.filePath("check.cpp").toStdString()) << program;
    QString printed;
    for (const QString& compiler : compilers()) {
        QProcess build;
        build.setWorkingDirectory(dir.path());
        const int code = runProcess(
            build, compiler,
            {"-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Werror", "check.cpp", "-o", "check"});
        if (code != 0)
            return compiler + " failed: " + QString::fromUtf8(build.readAllStandardError());
        QProcess run;
        if (runProcess(run, dir.filePath("check"), {}) != 0)
            return compiler + ": the program failed";
        const QString out = QString::fromUtf8(run.readAllStandardOutput());
        if (!printed.isEmpty() && out != printed)
            return compiler + " printed something else: " + out;
        printed = out;
    }
    return printed;
}

std::string shapeLiteral(const std::vector<std::int64_t>& shape) {
    std::string text;
    for (const std::int64_t size : shape)
        text += std::to_string(size) + ", ";
    return "{" + text + "}";
}

// The runtime's load error for a deployment with these constraints of one entry, written to a file.
QString loadError(const QString& path, const Json& constraints, const Json& sizeNames = kSizeNames) {
    Json deployment = fallbackDeployment();
    deployment["entries"][1]["constraints"] = constraints;
    deployment["entries"][1]["size_names"] = sizeNames;
    std::ofstream(path.toStdString()) << deployment.dump();
    try {
        tunescope::Deployment::load(path.toStdString());
    } catch (const std::runtime_error& error) {
        return error.what();
    }
    return "loaded";
}

SessionRecord sessionRecord(const std::string& problem, const Json& settings, const char* backend = "cpu") {
    SessionRecord session;
    session.kernel = "gemm";
    session.problem = problem;
    session.device = "CPU X";
    session.backend = backend;
    session.strategy = "random_sample";
    session.options = "{}";
    session.spaceMode = "constrained";
    session.budget = 1;
    session.parameters = R"(["VEC", "MC", "T"])";
    session.deviceInfo = Json{{"kind", "cpu"}, {"name", "CPU X"}, {"architecture", "X family 1"}}.dump();
    session.settings = settings.dump();
    return session;
}

void commitTrial(RecordStore& store, std::int64_t session, std::vector<std::int64_t> values, double ms) {
    Trial trial;
    for (const std::int64_t value : values)
        trial.config.emplace_back(value);
    trial.measurement.status = MeasureStatus::Ok;
    trial.measurement.objective = ms;
    trial.measurement.samples = {ms};
    store.commit(session, trial, {"VEC", "MC", "T"});
}

} // namespace

class TestDeploymentConstraints : public QObject {
    Q_OBJECT

private slots:
    void runtimeSkipsNearerEntriesThatBreakAConstraint();
    void generatedHeaderSkipsTheSameEntries();
    void runtimeAndHeaderEvaluateConstraintsAlike();
    void hostileConstraintTextIsRefusedWithFileAndKey();
    void hostileValuesAreCleanSkips();
    void headerGeneratorRefusesWhatItCannotCheck();
    void builderWritesEachSessionsChecks();
    void bestAndExportFollowTheConstraints();
    void filesWithoutChecksStillLoad();
    void deviceHelpersNameDevicesAsTheRecordsDo();
    void hostCpuIsWhatACpuSessionRecords();
};

void TestDeploymentConstraints::runtimeSkipsNearerEntriesThatBreakAConstraint() {
    const tunescope::Deployment deployment = tunescope::Deployment::fromJson(fallbackDeployment());
    QCOMPARE(deployment.entries()[0].sizeNames, std::vector<std::string>({"M", "N", "K"}));
    QCOMPARE(deployment.entries()[0].constraints.size(), std::size_t{2});
    for (const Lookup& l : kLookups) {
        const tunescope::Answer answer = deployment.lookup({"gemm", l.shape, "GPU A", ""});
        const QByteArray where = QByteArray::fromStdString(fmt::format("[{}]: ", fmt::join(l.shape, ", "))) +
                                 tunescope::ruleName(answer.rule) + " " + answer.config.dump().c_str();
        QVERIFY2(std::string(tunescope::ruleName(answer.rule)) == l.rule, where.constData());
        QVERIFY2(answer.config.value("T", -1) == l.t, where.constData());
        QCOMPARE(answer.skipped.size(), l.skipped);
    }
    // The answer names what was passed over, and why.
    const tunescope::Answer answer = deployment.lookup({"gemm", {1000, 1000, 1002}, "GPU A", ""});
    QCOMPARE(answer.skipped.size(), std::size_t{1});
    QCOMPARE(answer.skipped[0].entry, &deployment.entries()[0]);
    QCOMPARE(answer.skipped[0].constraint, std::string("K % VEC == 0 and N % VEC == 0"));
    QVERIFY(answer.skipped[0].error.empty());
    // Every entry breaks one: the default answers, and the answer still lists the three.
    const tunescope::Answer none = deployment.lookup({"gemm", {16, 1001, 1001}, "GPU A", ""});
    QCOMPARE(std::string(tunescope::ruleName(none.rule)), std::string("default"));
    QCOMPARE(none.skipped.size(), std::size_t{3});
    QCOMPARE(none.skipped[2].constraint, std::string("MC <= max(M, 32)"));
    // satisfies() is the same check, for programs that pick an entry themselves.
    QVERIFY(tunescope::Deployment::satisfies(deployment.entries()[1], {1000, 1000, 1002}));
    QVERIFY(!tunescope::Deployment::satisfies(deployment.entries()[0], {1000, 1000, 1002}));
}

void TestDeploymentConstraints::generatedHeaderSkipsTheSameEntries() {
    const QString header = QString::fromStdString(DeploymentHeader::generate(fallbackDeployment(), "tuned"));
    std::string program = "#include \"tuned.h\"\n#include <cstdio>\n\nint main() {\n";
    std::string expected;
    const tunescope::Deployment runtime = tunescope::Deployment::fromJson(fallbackDeployment());
    int index = 0;
    for (const Lookup& l : kLookups) {
        const std::string name = fmt::format("s{}", index++);
        program += "    {\n        const std::int64_t " + name + "[] = " + shapeLiteral(l.shape) + ";\n";
        program += "        const tuned::Answer a = tuned::lookup(\"gemm\", " + name + ", " +
                   std::to_string(l.shape.size()) + ", \"GPU A\");\n";
        program += "        const tuned::Param* t = a.find(\"T\");\n";
        program +=
            "        std::printf(\"%.*s %d %zu\\n\", static_cast<int>(tuned::ruleName(a.rule).size()), "
            "tuned::ruleName(a.rule).data(), t ? static_cast<int>(t->number) : -1, a.skipped);\n"
            "    }\n";
        // The runtime's answer is the expected one: the header must agree with it.
        const tunescope::Answer answer = runtime.lookup({"gemm", l.shape, "GPU A", ""});
        expected += fmt::format("{} {} {}\n", tunescope::ruleName(answer.rule), answer.config.value("T", -1),
                                answer.skipped.size());
    }
    program += "    return 0;\n}\n";
    QVERIFY(expected.find("nearest_shape 2 1\n") != std::string::npos);
    QCOMPARE(compileAndRun(header, program), QString::fromStdString(expected));
}

void TestDeploymentConstraints::runtimeAndHeaderEvaluateConstraintsAlike() {
    const Json deployment = expressionDeployment();
    const tunescope::Deployment runtime = tunescope::Deployment::fromJson(deployment);
    const std::vector<std::int64_t> shape{100, 200, 300};
    std::string program = "#include \"tuned.h\"\n#include <cstdio>\n\nint main() {\n"
                          "    const std::int64_t shape[] = {100, 200, 300};\n";
    std::string expected;
    for (std::size_t i = 0; i < kExpressions.size(); ++i) {
        const Expression& e = kExpressions[i];
        const std::string kernel = fmt::format("e{}", i);
        const tunescope::Answer answer = runtime.lookup({kernel, shape, "GPU A", ""});
        const bool holds = answer.rule == tunescope::Rule::NearestShape;
        QVERIFY2(holds == (e.holds == 1), e.text);
        if (!holds) {
            QCOMPARE(answer.skipped.size(), std::size_t{1});
            QVERIFY2(answer.skipped[0].error.empty() == (e.holds == 0),
                     (std::string(e.text) + ": " + answer.skipped[0].error).c_str());
        }
        program += "    std::printf(\"%d\\n\", tuned::lookup(\"" + kernel +
                   "\", shape, 3, \"GPU A\").rule == tuned::Rule::NearestShape ? 1 : 0);\n";
        expected += e.holds == 1 ? "1\n" : "0\n";
    }
    program += "    return 0;\n}\n";
    QCOMPARE(compileAndRun(QString::fromStdString(DeploymentHeader::generate(deployment, "tuned")), program),
             QString::fromStdString(expected));
    // The errors say what went wrong.
    const auto errorOf = [&](const char* text) {
        for (std::size_t i = 0; i < kExpressions.size(); ++i)
            if (std::string(kExpressions[i].text) == text)
                return runtime.lookup({fmt::format("e{}", i), shape, "GPU A", ""}).skipped.at(0).error;
        return std::string("not in the table");
    };
    QCOMPARE(errorOf("1 // (M - M) == 0"), std::string("floor division by zero"));
    QVERIFY2(errorOf("NOPE > 1").find("names a parameter") != std::string::npos, errorOf("NOPE > 1").c_str());
}

void TestDeploymentConstraints::hostileConstraintTextIsRefusedWithFileAndKey() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("hostile.json");
    const auto refused = [&](const Json& constraints, const QString& problem,
                             const Json& sizes = kSizeNames) {
        QElapsedTimer timer;
        timer.start();
        const QString error = loadError(path, constraints, sizes);
        QVERIFY2(timer.elapsed() < 5000, qPrintable(error));
        QVERIFY2(error.startsWith("the deployment file " + path + " is invalid: \"entries[1]."),
                 qPrintable(error));
        QVERIFY2(error.contains(problem), qPrintable(error));
    };
    const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
    refused(Json::array({"MC > 0", deep.substr(100000 - 101, 203)}),
            "\"entries[1].constraints[1]\" is not a constraint tunescope/runtime.h reads (it nests more than "
            "100 levels deep at column 101)");
    refused(Json::array({std::string(20000, '-') + "1"}), "constraints[0]\" is not a constraint");
    refused(Json::array({deep}), "(it is longer than 4096 characters)");
    refused(Json::array({"M +"}), "(unexpected end at column 4)");
    refused(Json::array({"M ! 1"}), "(unexpected character '!' at column 3)");
    refused(Json::array({"M \x01 1"}), "(an unexpected byte at column 3)");
    refused(Json::array({"len(M) > 1"}), "the function \"len\" is not one of");
    refused(Json::array({"min(M) > 1"}), "min() takes two or more values here");
    refused(Json::array({"M in [1, 2] in [3]"}), "a list display ends a comparison chain here");
    refused(Json::array({"[M] == 1"}), "a list display is only read after `in` here");
    refused(Json::array({"'open"}), "unterminated string");
    refused(Json::array({"0x"}), "malformed number '0x'");
    refused(Json::array({1}), "\"entries[1].constraints[0]\" is not a string");
    refused("M > 1", "\"entries[1].constraints\" is not a list of strings");
    refused(Json(std::vector<std::string>(257, "M > 1")),
            "\"entries[1].constraints\" has more than 256 items");
    refused(Json::array({"M > 1"}), "\"entries[1].size_names[0]\" is not a string", Json::array({3}));
    // An evaluation stack past the limit: a list display of more values than the stack holds is fine (one
    // at a time), a sum nested 100 deep is not past it either, but 300 arguments of a call are.
    std::string manyArguments = "max(";
    for (int i = 0; i < 300; ++i)
        manyArguments += "1, ";
    refused(Json::array({manyArguments + "1) > 0"}), "holds more than 256 values at once");
    std::string longList = "M in [";
    for (int i = 0; i < 1300; ++i)
        longList += "1, ";
    QCOMPARE(loadError(path, Json::array({longList + "2]"})), QString("loaded"));
    // The file itself is intact and still refused the same way the next time.
    refused(Json::array({"M +"}), "(unexpected end at column 4)");
}

void TestDeploymentConstraints::hostileValuesAreCleanSkips() {
    // Names the entry does not have, and values a constraint cannot take: the entry is skipped, the next
    // one answers.
    Json deployment = fallbackDeployment();
    deployment["entries"][0]["constraints"] = Json::array({"NOT_A_PARAMETER > 1"});
    deployment["entries"][1]["config"]["LIST"] = Json::array({1, 2});
    deployment["entries"][1]["constraints"] = Json::array({"LIST == 1"});
    deployment["entries"][2]["constraints"] = Json::array({"M // (K - K) > 0 or M > 0"});
    const tunescope::Deployment runtime = tunescope::Deployment::fromJson(deployment);
    const tunescope::Answer answer = runtime.lookup({"gemm", {1000, 1000, 1000}, "GPU A", ""});
    QCOMPARE(std::string(tunescope::ruleName(answer.rule)), std::string("default"));
    QCOMPARE(answer.skipped.size(), std::size_t{3});
    for (const tunescope::Skipped& skipped : answer.skipped)
        QVERIFY(!skipped.error.empty());
    QCOMPARE(answer.skipped[2].error, std::string("floor division by zero"));
    // A size name beyond the asked shape's rank cannot happen for a shape of the entry's rank; names bind
    // sizes first, so a parameter named like a size is shadowed by the size, as in tuning.
    deployment["entries"][0]["constraints"] = Json::array({"M == 1000"});
    deployment["entries"][0]["config"]["M"] = 5;
    QCOMPARE(tunescope::Deployment::fromJson(deployment)
                 .lookup({"gemm", {1000, 1000, 1000}, "GPU A", ""})
                 .config.value("T", -1),
             1);
}

void TestDeploymentConstraints::headerGeneratorRefusesWhatItCannotCheck() {
    Json deployment = fallbackDeployment();
    deployment["entries"][2]["constraints"] =
        Json::array({"M > 1", std::string(300, '(') + "1" + std::string(300, ')')});
    try {
        DeploymentHeader::generate(deployment, "tuned");
        QFAIL("a header was generated");
    } catch (const Error& error) {
        QCOMPARE(
            QString(error.what()),
            QString("The deployment's \"entries[2].constraints[1]\" is not a constraint that a generated "
                    "header can check (it nests more than 100 levels deep at column 101)."));
    }
    deployment["entries"][2]["constraints"] = Json::array({7});
    try {
        DeploymentHeader::generate(deployment, "tuned");
        QFAIL("a header was generated");
    } catch (const Error& error) {
        QCOMPARE(QString(error.what()),
                 QString("The deployment's \"entries[2].constraints\" is not a list of strings."));
    }
}

void TestDeploymentConstraints::builderWritesEachSessionsChecks() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string db = dir.filePath("records.db").toStdString();
    std::int64_t stored = 0;
    std::int64_t old = 0;
    std::int64_t gone = 0;
    std::int64_t replay = 0;
    {
        RecordStore store(db);
        // A session of today: the variant's constraints stored with it, extra ones of the plan (one the
        // runtime does not read, one too deep, one repeating a kernel constraint).
        stored = store.beginSession(
            sessionRecord(R"({"K": 64, "M": 32, "N": 48})",
                          {{DeploymentBuilder::kKernelConstraintsKey, {"MC % 2 == 0", "K % VEC == 0"}},
                           {"constraints",
                            {"MC <= 64", "len([MC]) == 1",
                             std::string(500, '(') + "1" + std::string(500, ')'), "MC % 2 == 0"}}}));
        commitTrial(store, stored, {4, 32, 1}, 1.0);
        // A session recorded before the constraints were stored: they come from its kernel spec file.
        old = store.beginSession(
            sessionRecord(R"({"K": 128, "M": 32, "N": 48})",
                          {{"kernel", {{"spec", TUNESCOPE_KERNELS "/gemm/kernel.json"}}}}));
        commitTrial(store, old, {4, 32, 2}, 1.0);
        // ... whose spec file is gone.
        gone = store.beginSession(
            sessionRecord(R"({"K": 256, "M": 32, "N": 48})",
                          {{"kernel", {{"spec", dir.filePath("gone/kernel.json").toStdString()}}}}));
        commitTrial(store, gone, {4, 32, 3}, 1.0);
        // A replay session: constraints over parameters only, no size names.
        replay = store.beginSession(sessionRecord("[4096]", {{"constraints", {"MC >= 32"}}}, "replay"));
        commitTrial(store, replay, {4, 32, 4}, 1.0);
    }
    RecordStore store(db, DatabaseAccess::ReadOnly);
    DeploymentBuilder builder(store);
    const Json deployment = builder.build();
    std::map<std::int64_t, Json> bySession;
    for (const Json& e : deployment["entries"])
        bySession[e["session"].get<std::int64_t>()] = e;
    QCOMPARE(bySession[stored]["size_names"], Json::array({"K", "M", "N"}));
    QCOMPARE(bySession[stored]["constraints"], Json::array({"MC % 2 == 0", "K % VEC == 0", "MC <= 64"}));
    const auto& cpu = Json::parse(R"x(["MC % MR == 0", "NR % VEC == 0", "8 <= MR * (NR // VEC) <= 16",
                                      "MC <= max(M, 32)", "NC <= max(N, 512)", "KC <= max(K, 64)"])x");
    QCOMPARE(bySession[old]["constraints"], Json(cpu));
    QCOMPARE(bySession[gone]["constraints"], Json::array());
    QCOMPARE(bySession[replay]["size_names"], Json::array());
    QCOMPARE(bySession[replay]["constraints"], Json::array({"MC >= 32"}));
    // Each constraint left out is named, with the session and why.
    QCOMPARE(builder.warnings().size(), std::size_t{3});
    const QString warnings = QString::fromStdString(fmt::format("{}", fmt::join(builder.warnings(), "\n")));
    QVERIFY2(
        warnings.contains(QString("the constraint \"len([MC]) == 1\" of session %1 (gemm) is left out of the "
                                  "deployment: tunescope/runtime.h does not read it (")
                              .arg(stored)),
        qPrintable(warnings));
    QVERIFY2(warnings.contains("nests more than 100 levels deep"), qPrintable(warnings));
    QVERIFY2(
        warnings.contains(QString("the kernel constraints of session %1 (gemm) are unknown").arg(gone)) &&
            warnings.contains("gone/kernel.json"),
        qPrintable(warnings));
    // What the builder writes, the runtime reads back and the header compiles.
    QCOMPARE(tunescope::Deployment::fromJson(deployment).entries().size(), std::size_t{4});
    QVERIFY(!DeploymentHeader::generate(deployment).empty());
}

void TestDeploymentConstraints::bestAndExportFollowTheConstraints() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    {
        RecordStore store(db.toStdString());
        const Json settings{{DeploymentBuilder::kKernelConstraintsKey, kGemmConstraints}};
        // Stored problems name their sizes; the shapes are in their key order (K, M, N).
        const std::int64_t a =
            store.beginSession(sessionRecord(R"({"K": 1024, "M": 1024, "N": 1024})", settings));
        commitTrial(store, a, {4, 64, 1}, 1.0);
        const std::int64_t b =
            store.beginSession(sessionRecord(R"({"K": 512, "M": 512, "N": 512})", settings));
        commitTrial(store, b, {2, 32, 2}, 2.0);
    }
    const QByteArray before = [&] {
        QFile file(db);
        file.open(QIODevice::ReadOnly);
        return file.readAll();
    }();
    const auto best = [&](const QString& size) {
        return ts::test::runCli(
            {"best", "--db", db, "--kernel", "gemm", "--size", size, "--device", "CPU X", "--json"});
    };
    // K = 1002: the 1024 entry's VEC 4 breaks K % VEC == 0; the 512 entry's VEC 2 holds.
    const ts::test::CliResult near = best("1000,1000,1002");
    QVERIFY2(near.exitCode == 0, qPrintable(near.err));
    const Json answer = Json::parse(near.out.toStdString());
    QCOMPARE(answer.value("rule", ""), std::string("nearest_shape"));
    QCOMPARE(answer["config"].value("T", -1), 2);
    const ts::test::CliResult plain = best("1000,1000,1000");
    QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
    QCOMPARE(Json::parse(plain.out.toStdString())["config"].value("T", -1), 1);
    // The exported deployment and header answer the same.
    const QString out = dir.filePath("deployment.json");
    const ts::test::CliResult exported =
        ts::test::runCli({"export", "--db", db, "--format", "deploy", "-o", out});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
    const tunescope::Deployment deployment = tunescope::Deployment::load(out.toStdString());
    QCOMPARE(deployment.lookup({"gemm", {1000, 1000, 1002}, "CPU X", ""}).config.value("T", -1), 2);
    // The same size by name, in another order.
    const ts::test::CliResult named = best("K=1002,M=1000,N=1000");
    QVERIFY2(named.exitCode == 0, qPrintable(named.err));
    QCOMPARE(Json::parse(named.out.toStdString())["config"].value("T", -1), 2);
    QFile file(db);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), before);
}

void TestDeploymentConstraints::filesWithoutChecksStillLoad() {
    Json deployment = fallbackDeployment();
    for (Json& e : deployment["entries"]) {
        e.erase("size_names");
        e.erase("constraints");
    }
    deployment["entries"][1]["constraints"] = nullptr;
    const tunescope::Deployment runtime = tunescope::Deployment::fromJson(deployment);
    // Without constraints, nearest is nearest, as before.
    const tunescope::Answer answer = runtime.lookup({"gemm", {1000, 1000, 1002}, "GPU A", ""});
    QCOMPARE(answer.config.value("T", -1), 1);
    QVERIFY(answer.skipped.empty());
    QVERIFY(runtime.entries()[0].constraints.empty());
}

void TestDeploymentConstraints::deviceHelpersNameDevicesAsTheRecordsDo() {
    // The same text through the records' reader and the runtime's.
    const std::vector<std::string> texts{
        "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel name\t: AMD EPYC 7B13 64-Core "
        "Processor\n\nprocessor\t: 1\nmodel name\t: other\n",
        "processor : 0\nBogoMIPS : 50.00\nFeatures : fp asimd\nCPU implementer : 0x41\n", // no names: ARM
        "vendor_id : GenuineIntel\nmodel name :   Intel(R) Xeon(R)  \n", ""};
    for (const std::string& text : texts) {
        std::istringstream a(text);
        std::istringstream b(text);
        const CpuInfo info = CpuInfo::parseCpuinfo(a);
        const tunescope::Device device = tunescope::cpuFromCpuinfo(b);
        QCOMPARE(device.name, info.model.empty() ? std::string("unknown CPU") : info.model);
        QCOMPARE(device.architecture, info.vendor.empty() && info.family.empty()
                                          ? std::string()
                                          : info.vendor + " family " + info.family);
    }
    std::istringstream amd(texts[0]);
    QCOMPARE(tunescope::cpuFromCpuinfo(amd).architecture, std::string("AuthenticAMD family 25"));
    const DeviceFingerprint host = DeviceFingerprint::ofHostCpu();
    QCOMPARE(tunescope::hostCpu().name, host.name);
    QCOMPARE(tunescope::hostCpu().architecture, host.architecture);
    // CUDA: cudaDeviceProp's name and compute capability, as a cuda session records them.
    for (const auto& [major, minor] :
         std::vector<std::pair<int, int>>{{8, 6}, {9, 0}, {10, 0}, {12, 0}, {7, 5}}) {
        GpuSpec spec;
        spec.computeMajor = major;
        spec.computeMinor = minor;
        const tunescope::Device gpu = tunescope::cudaDevice("NVIDIA H200", major, minor);
        QCOMPARE(gpu.architecture, spec.architecture());
        QCOMPARE(gpu.name, std::string("NVIDIA H200"));
    }
    QCOMPARE(tunescope::cudaDevice("NVIDIA GeForce RTX 3090", 8, 6).architecture,
             DeviceFingerprint::gpuArchitecture("NVIDIA GeForce RTX 3090"));
}

void TestDeploymentConstraints::hostCpuIsWhatACpuSessionRecords() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("TUNESCOPE_CACHE_DIR", dir.filePath("builds"));
    const QString db = dir.filePath("records.db");
    const ts::test::CliResult tuned = ts::test::runCli(
        {"tune", "--db", db, "--kernel", "gemm", "--backend", "cpu", "--size", "16,16,24", "--strategy",
         "random_sample", "--budget", "1", "--repeat", "1", "--warmup-ms", "0"},
        environment);
    QVERIFY2(tuned.exitCode == 0, qPrintable(tuned.err));
    const QString out = dir.filePath("deployment.json");
    const ts::test::CliResult exported =
        ts::test::runCli({"export", "--db", db, "--format", "deploy", "-o", out});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
    const tunescope::Deployment deployment = tunescope::Deployment::load(out.toStdString());
    QCOMPARE(deployment.entries().size(), std::size_t{1});
    const tunescope::Entry& e = deployment.entries()[0];
    const tunescope::Device host = tunescope::hostCpu();
    QCOMPARE(e.device, host.name);
    QCOMPARE(e.architecture, host.architecture);
    // A program asking with hostCpu() finds the entry by the exact rule, with no guess.
    QCOMPARE(deployment.lookup({"gemm", e.shape, host.name, host.architecture}).rule, tunescope::Rule::Exact);
    // The session stored its kernel's constraints: the entry carries them, over the sizes it names.
    QCOMPARE(e.sizeNames, std::vector<std::string>({"M", "N", "K"}));
    QVERIFY(std::find_if(e.constraints.begin(), e.constraints.end(), [](const tunescope::Constraint& c) {
                return c.text == "MC <= max(M, 32)";
            }) != e.constraints.end());
    QVERIFY(tunescope::Deployment::satisfies(e, e.shape));
}

QTEST_APPLESS_MAIN(TestDeploymentConstraints)
#include "TestDeploymentConstraints.moc"
