// The lookup rules on one table of cases, answered three ways: by tunescope/runtime.h in process, by the
// generated C++ header compiled on its own with the system's compilers, and by `tunescope-cli best` over a
// records database holding the same entries. Also compiles and runs docs/examples/runtime_example.cpp.
#include "deploy/DeploymentHeader.h"
#include "store/RecordStore.h"
#include "runtime/tunescope/runtime.h"

#include "HostCompilers.h"

#include <QDir>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace ts;
using Json = nlohmann::ordered_json;

namespace {

const QString kProjectRoot = QDir(TUNESCOPE_RESOURCES "/..").absolutePath();

struct Case {
    const char* kernel;
    std::vector<std::int64_t> shape;
    const char* device;
    const char* architecture; // "" when the caller does not know it
    const char* rule;
    int t; // the answer's "T" parameter; -1 for none
};

const std::vector<Case> kCases{
    {"gemm", {1024, 1024, 1024}, "GPU A", "", "exact", 1},
    {"gemm", {2048, 2048, 2048}, "GPU A", "", "architecture", 4}, // B and C share sm_86; C is faster
    {"gemm", {2048, 2048, 2048}, "GPU D", "sm_86", "architecture", 4},
    {"gemm", {3000, 3000, 3000}, "GPU A", "", "nearest_shape", 2},
    {"gemm", {1500, 1500, 1500}, "GPU A", "", "nearest_shape", 1},
    {"gemm", {1024, 1024}, "GPU A", "", "default", 0}, // another rank is no shape to be near to
    {"gemm", {1024, 1024, 1024}, "GPU Z", "", "default", 0},
    {"conv", {64, 64}, "GPU Z", "sm_86", "architecture", 8},
    {"conv", {32, 32}, "GPU Z", "", "none", -1},
    {"gemm", {1024, 1024, 1024}, "CPU X", "", "exact", 5},
    {"gemm", {1024, 1024, 1024}, "CPU Y", "AuthenticAMD family 25", "architecture", 5},
    {"gemm", {2048, 2048, 2048}, "CPU X", "", "nearest_shape", 5},
    {"gemm", {1024, 1024, 1024}, "GPU B", "sm_90", "nearest_shape", 3}, // a wrong architecture finds no
                                                                        // sibling
};

struct TableEntry {
    const char* kernel;
    std::vector<std::int64_t> shape;
    const char* device;
    const char* architecture;
    double timeMs;
    Json config;
};

std::vector<TableEntry> table() {
    return {
        {"gemm", {1024, 1024, 1024}, "GPU A", "sm_86", 1.0, {{"T", 1}}},
        {"gemm", {4096, 4096, 4096}, "GPU A", "sm_86", 5.0, {{"T", 2}}},
        {"gemm", {2048, 2048, 2048}, "GPU B", "sm_86", 2.0, {{"T", 3}}},
        {"gemm", {2048, 2048, 2048}, "GPU C", "sm_86", 1.5, {{"T", 4}}},
        {"gemm",
         {1024, 1024, 1024},
         "CPU X",
         "AuthenticAMD family 25",
         10.0,
         {{"T", 5}, {"layout", "row \"major\""}, {"fast", true}, {"ratio", 1.5}}},
        {"conv", {64, 64}, "GPU A", "sm_86", 0.5, {{"T", 8}}},
    };
}

Json deployment() {
    Json entries = Json::array();
    for (const TableEntry& e : table())
        entries.push_back({{"kernel", e.kernel},
                           {"problem_size", e.shape},
                           {"device", e.device},
                           {"architecture", e.architecture},
                           {"config", e.config},
                           {"time_ms", e.timeMs}});
    return {{"format", "tunescope-deployment"},
            {"version", 1},
            {"defaults", {{"gemm", {{"T", 0}}}}},
            {"entries", entries}};
}

QString compilerOutput(QProcess& process) {
    return QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
}

using ts::test::compilers;
using ts::test::runProcess;

QString shapeArgument(const std::vector<std::int64_t>& shape) {
    QStringList items;
    for (const std::int64_t size : shape)
        items << QString::number(size);
    return items.join(',');
}

} // namespace

class TestRuntimeHeader : public QObject {
    Q_OBJECT

private slots:
    void runtimeAnswersTheTable();
    void runtimeRejectsBadFiles();
    void generatedHeaderCompilesAloneAndAnswersTheTable();
    void bestCommandAnswersTheTableFromRecords();
    void documentedExampleCompilesAndRuns();
};

void TestRuntimeHeader::runtimeAnswersTheTable() {
    const tunescope::Deployment runtime = tunescope::Deployment::fromJson(deployment());
    QCOMPARE(runtime.entries().size(), table().size());
    QCOMPARE(runtime.architectureOf("GPU A"), std::string("sm_86"));
    QVERIFY(runtime.architectureOf("GPU Z").empty());
    for (const Case& c : kCases) {
        const tunescope::Answer answer = runtime.lookup({c.kernel, c.shape, c.device, c.architecture});
        const QByteArray where = QByteArray(c.kernel) + " on " + c.device + " at " +
                                 shapeArgument(c.shape).toUtf8() + ": " + tunescope::ruleName(answer.rule);
        QVERIFY2(std::string(tunescope::ruleName(answer.rule)) == c.rule, where.constData());
        if (c.t < 0) {
            QVERIFY(!answer.found());
            QVERIFY(answer.config.empty());
            continue;
        }
        QVERIFY2(answer.config.value("T", -1) == c.t,
                 (where + " -> " + answer.config.dump().c_str()).constData());
        QCOMPARE(answer.fromOtherDevice(), std::string(c.rule) == "architecture");
        QCOMPARE(answer.entry == nullptr, std::string(c.rule) == "default");
    }
    // Nearest shape: the distance is that of the logarithms.
    const tunescope::Answer near = runtime.lookup({"gemm", {3000, 3000, 3000}, "GPU A", ""});
    QVERIFY(std::abs(near.distance - std::sqrt(3.0) * std::log(4096.0 / 3000.0)) < 1e-12);
}

void TestRuntimeHeader::runtimeRejectsBadFiles() {
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, tunescope::Deployment::fromJson(Json::array()));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                             tunescope::Deployment::fromJson({{"entries", Json::array({{{"kernel", 3}}})}}));
    QTemporaryDir dir;
    const QString path = dir.filePath("broken.json");
    std::ofstream(path.toStdString()) << "{\"entries\": [";
    try {
        tunescope::Deployment::load(path.toStdString());
        QFAIL("a broken file loaded");
    } catch (const std::runtime_error& error) {
        QVERIFY2(QString(error.what()).contains(path) && QString(error.what()).contains("not valid JSON"),
                 error.what());
    }
}

void TestRuntimeHeader::generatedHeaderCompilesAloneAndAnswersTheTable() {
    const QStringList available = compilers();
    QVERIFY2(!available.isEmpty(), "neither g++ nor clang++ is on PATH");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::ofstream(dir.filePath("tuned.h").toStdString()) << DeploymentHeader::generate(deployment(), "tuned");

    // One line per case: "<rule> <T>"; then the typed values of the CPU entry.
    std::string program = "#include \"tuned.h\"\n#include <cstdio>\n\nint main() {\n";
    std::string expected;
    int index = 0;
    for (const Case& c : kCases) {
        std::string shape;
        for (const std::int64_t size : c.shape)
            shape += std::to_string(size) + ", ";
        program +=
            "    {\n        const std::int64_t shape" + std::to_string(index) + "[] = {" + shape + "};\n";
        program += "        const tuned::Answer a = tuned::lookup(\"" + std::string(c.kernel) + "\", shape" +
                   std::to_string(index) + ", " + std::to_string(c.shape.size()) + ", \"" + c.device +
                   "\", \"" + c.architecture + "\");\n";
        program += "        const tuned::Param* t = a.find(\"T\");\n";
        program += "        std::printf(\"%.*s %d\\n\", static_cast<int>(tuned::ruleName(a.rule).size()), "
                   "tuned::ruleName(a.rule).data(), t ? static_cast<int>(t->number) : -1);\n    }\n";
        expected += std::string(c.rule) + " " + std::to_string(c.t) + "\n";
        ++index;
    }
    program += R"(    const std::int64_t cpu[] = {1024, 1024, 1024};
    const tuned::Answer a = tuned::lookup("gemm", cpu, 3, "CPU X");
    std::printf("%.*s|%d|%g|%zu\n", static_cast<int>(a.find("layout")->text.size()), a.find("layout")->text.data(),
                a.find("fast")->numeric ? static_cast<int>(a.find("fast")->number) : -1, a.find("ratio")->number,
                tuned::kEntries.size());
    static_assert(tuned::kEntries.size() == 6, "every entry is in the table");
    static_assert(tuned::kDefaults.size() == 1, "the default is in the table");
    return 0;
}
)";
    expected += "row \"major\"|1|1.5|6\n";
    std::ofstream(dir.filePath("check.cpp").toStdString()) << program;

    for (const QString& compiler : available) {
        QProcess build;
        build.setWorkingDirectory(dir.path());
        const int code = runProcess(
            build, compiler,
            {"-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Werror", "check.cpp", "-o", "check"});
        QVERIFY2(code == 0, qPrintable(compiler + ": " + compilerOutput(build)));
        QProcess run;
        QCOMPARE(runProcess(run, dir.filePath("check"), {}), 0);
        QCOMPARE(QString::fromUtf8(run.readAllStandardOutput()), QString::fromStdString(expected));
        qInfo("%s: the generated header compiles alone and answers all %zu cases", qPrintable(compiler),
              kCases.size());
    }
}

void TestRuntimeHeader::bestCommandAnswersTheTableFromRecords() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    {
        RecordStore store(db.toStdString());
        bool first = true;
        for (const TableEntry& e : table()) {
            SessionRecord session;
            session.kernel = e.kernel;
            session.problem = Json(e.shape).dump();
            session.device = e.device;
            session.backend = "replay";
            session.strategy = "random_sample";
            session.options = "{}";
            session.spaceMode = "constrained";
            session.budget = 2;
            std::vector<std::string> names;
            for (const auto& [name, value] : e.config.items())
                names.push_back(name);
            session.parameters = Json(names).dump();
            session.deviceInfo = Json{{"name", e.device}, {"architecture", e.architecture}}.dump();
            if (first && std::string(e.kernel) == "gemm")
                session.settings = R"({"default_config": {"T": 0}})";
            first = false;
            const std::int64_t id = store.beginSession(session);
            Trial trial;
            for (const auto& [name, value] : e.config.items()) {
                if (value.is_boolean())
                    trial.config.emplace_back(value.get<bool>());
                else if (value.is_number_integer())
                    trial.config.emplace_back(value.get<std::int64_t>());
                else if (value.is_number())
                    trial.config.emplace_back(value.get<double>());
                else
                    trial.config.emplace_back(value.get<std::string>());
            }
            trial.measurement.status = MeasureStatus::Ok;
            trial.measurement.objective = e.timeMs;
            trial.measurement.samples = {e.timeMs};
            store.commit(id, trial, names);
            // A slower and a failed trial that must not be chosen.
            trial.number = 1;
            trial.measurement.objective = e.timeMs * 3;
            store.commit(id, trial, names);
            trial.number = 2;
            trial.measurement.status = MeasureStatus::RuntimeFailed;
            trial.measurement.objective = e.timeMs / 100;
            store.commit(id, trial, names);
        }
    }
    for (const Case& c : kCases) {
        QStringList arguments{
            "best",     "--db",   db,      "--kernel", c.kernel, "--size", shapeArgument(c.shape),
            "--device", c.device, "--json"};
        if (*c.architecture != '\0')
            arguments << "--arch" << c.architecture;
        QProcess best;
        const int code = runProcess(best, TUNESCOPE_CLI, arguments);
        const QString err = QString::fromUtf8(best.readAllStandardError());
        if (c.t < 0) {
            QCOMPARE(code, 1);
            QVERIFY2(err.contains("No record of kernel") && err.trimmed().count('\n') == 0, qPrintable(err));
            continue;
        }
        QVERIFY2(code == 0, qPrintable(err));
        const Json out = Json::parse(best.readAllStandardOutput().toStdString());
        QCOMPARE(out.value("rule", ""), std::string(c.rule));
        QCOMPARE(out["config"].value("T", -1), c.t);
        // A warning says why the answer is not this device's own config at this size: it was tuned on
        // another device (architecture), or no record is of this device or of this rank (default here).
        const std::string rule = c.rule;
        QCOMPARE(err.contains("warning:"), rule == "architecture" || rule == "default");
    }
    // The plain answer names the rule and where the config was tuned.
    QProcess plain;
    QCOMPARE(
        runProcess(plain, TUNESCOPE_CLI,
                   {"best", "--db", db, "--kernel", "gemm", "--size", "3000,3000,3000", "--device", "GPU A"}),
        0);
    const QString text = QString::fromUtf8(plain.readAllStandardOutput());
    QVERIFY2(text.startsWith("rule: nearest_shape\n") &&
                 text.contains("tuned on GPU A (sm_86) at size [4096, 4096, 4096]"),
             qPrintable(text));
}

void TestRuntimeHeader::documentedExampleCompilesAndRuns() {
    const QString compiler = QStandardPaths::findExecutable("g++");
    if (compiler.isEmpty())
        QSKIP("g++ is not on PATH");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::ofstream(dir.filePath("deployment.json").toStdString()) << deployment().dump(2);
    QProcess build;
    const int code =
        runProcess(build, compiler,
                   {"-std=c++17", "-Wall", "-Wextra", "-Werror", "-I", kProjectRoot + "/core/runtime",
                    kProjectRoot + "/docs/examples/runtime_example.cpp", "-o", dir.filePath("example")});
    QVERIFY2(code == 0, qPrintable(compilerOutput(build)));
    QProcess exact;
    QCOMPARE(runProcess(exact, dir.filePath("example"),
                        {dir.filePath("deployment.json"), "gemm", "1024,1024,1024", "CPU X"}),
             0);
    QCOMPARE(QString::fromUtf8(exact.readAllStandardOutput()),
             QString("rule: exact\nT = 5\nlayout = \"row \\\"major\\\"\"\nfast = true\nratio = 1.5\n"));
    QProcess sibling;
    QCOMPARE(runProcess(sibling, dir.filePath("example"),
                        {dir.filePath("deployment.json"), "conv", "64,64", "GPU Z", "sm_86"}),
             0);
    QCOMPARE(QString::fromUtf8(sibling.readAllStandardOutput()), QString("rule: architecture\nT = 8\n"));
    QVERIFY(QString::fromUtf8(sibling.readAllStandardError()).contains("tuned on GPU A"));
    QProcess none;
    QCOMPARE(
        runProcess(none, dir.filePath("example"), {dir.filePath("deployment.json"), "conv", "1,1", "GPU Z"}),
        1);
    QCOMPARE(QString::fromUtf8(none.readAllStandardOutput()), QString("rule: none\n"));
}

QTEST_APPLESS_MAIN(TestRuntimeHeader)
#include "TestRuntimeHeader.moc"
