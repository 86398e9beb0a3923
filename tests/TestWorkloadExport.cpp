// `export --workload ID --format deploy|header`: one deployment with every task's shape of a workload. A real
// cpu workload of gemm at two sizes: its deployment (runtime.h, the generated header, `best`) answers each
// task's shape by the exact rule and unseen shapes by the nearest entry whose config satisfies the kernel's
// constraints there, as Tunescope's own expression engine evaluates them. Failed tasks are named and left
// out; a workload that is not there or has nothing to export is one sentence.
#include "CliRun.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpecReader.h"
#include "store/RecordStore.h"
#include "store/WorkloadRecord.h"
#include "runtime/tunescope/runtime.h"
#include "space/Expression.h"
#include "space/ValueJson.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <fmt/format.h>

#include <fstream>

using namespace ts;
using Json = nlohmann::ordered_json;
using Result = ts::test::CliResult;

namespace {

QByteArray fileBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(absent)");
}

// Whether Tunescope's own engine (the one tuning enumerates spaces with) finds every constraint of gemm's
// cpu variant true for `config` at `shape` (in the order of `names`).
bool satisfiesKernel(const Json& config, const std::vector<std::int64_t>& shape,
                     const std::vector<std::string>& names) {
    const KernelSpec spec = readKernelSpec(TUNESCOPE_KERNELS "/gemm/kernel.json");
    ProblemSize size(spec.problem.size());
    for (std::size_t i = 0; i < spec.problem.size(); ++i)
        for (std::size_t k = 0; k < names.size(); ++k)
            if (names[k] == spec.problem[i].name)
                size[i] = shape[k];
    for (const std::string& constraint : spec.variant("cpu")->constraints) {
        const Expression expression =
            Expression::parse(bindProblemSize(constraint, spec, size), "constraint");
        const bool holds = expression.test([&config](std::string_view name) -> std::optional<Value> {
            const auto it = config.find(std::string(name));
            return it == config.end() ? std::nullopt : valueFromJson(*it);
        });
        if (!holds)
            return false;
    }
    return true;
}

std::string joined(const std::vector<std::int64_t>& shape, const char* separator = ",") {
    return fmt::format("{}", fmt::join(shape, separator));
}

const std::vector<std::vector<std::int64_t>> kUnseen{
    {20, 20, 20}, {33, 47, 61}, {100, 100, 100}, {16, 1000, 16}, {1000, 16, 16}, {47, 48, 20}, {64, 64, 600}};

} // namespace

class TestWorkloadExport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void everyTaskShapeAnswersExactly();
    void unseenShapesGetConfigsThatSatisfyTheKernel();
    void generatedHeaderAnswersAsTheRuntime();
    void failedTasksAreNamedAndLeftOut();
    void missingOrEmptyWorkloadsAreOneSentence();

private:
    QTemporaryDir m_dir;
    QString m_db;
    std::int64_t m_workload = 0;
    QString m_deployment;
};

void TestWorkloadExport::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath("records.db");
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("TUNESCOPE_CACHE_DIR", m_dir.filePath("builds"));
    const Result tuned = ts::test::runCli({"tune",
                                           "--db",
                                           m_db,
                                           "--kernel",
                                           "gemm",
                                           "--backend",
                                           "cpu",
                                           "--size",
                                           "48,40,64",
                                           "--size",
                                           "64,64,32",
                                           "--strategy",
                                           "random_sample",
                                           "--budget",
                                           "6",
                                           "--batch-size",
                                           "2",
                                           "--repeat",
                                           "1",
                                           "--warmup-ms",
                                           "0",
                                           "--min-repeat-ms",
                                           "1"},
                                          environment, 600000);
    QVERIFY2(tuned.exitCode == 0, qPrintable(tuned.err));
    // A replay session outside the workload: the workload's export must leave it out.
    const Result other = ts::test::runCli({"tune", "--db", m_db, "--dataset",
                                           TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz",
                                           "--strategy", "random_sample", "--budget", "5"});
    QVERIFY2(other.exitCode == 0, qPrintable(other.err));
    RecordStore store(m_db.toStdString(), DatabaseAccess::ReadOnly);
    QCOMPARE(store.workloads().size(), std::size_t{1});
    m_workload = store.workloads().front().id;
    m_deployment = m_dir.filePath("workload.json");
    const Result exported =
        ts::test::runCli({"export", "--db", m_db, "--workload", QString::number(m_workload), "--format",
                          "deploy", "-o", m_deployment});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
}

void TestWorkloadExport::everyTaskShapeAnswersExactly() {
    const tunescope::Deployment deployment = tunescope::Deployment::load(m_deployment.toStdString());
    RecordStore store(m_db.toStdString(), DatabaseAccess::ReadOnly);
    const WorkloadRecord workload = *store.workload(m_workload);
    QCOMPARE(workload.tasks.size(), std::size_t{2});
    QCOMPARE(deployment.entries().size(), std::size_t{2}); // the replay session is not the workload's
    const tunescope::Device host = tunescope::hostCpu();
    for (const WorkloadTaskRecord& task : workload.tasks) {
        QVERIFY(task.session.has_value());
        const SessionRecord session = *store.session(*task.session);
        // The task's shape as the records write it: the values of its stored problem, in order.
        std::vector<std::int64_t> shape;
        const Json problem = Json::parse(session.problem);
        for (const auto& [name, size] : problem.items())
            shape.push_back(size.get<std::int64_t>());
        const tunescope::Answer answer = deployment.lookup({"gemm", shape, host.name, host.architecture});
        QCOMPARE(answer.rule, tunescope::Rule::Exact);
        QCOMPARE(answer.entry->record.value("session", std::int64_t{0}), *task.session);
        double best = INFINITY;
        for (const StoredTrial& trial : store.trials(*task.session))
            if (trial.status == "ok")
                best = std::min(best, trial.objective);
        QCOMPARE(answer.entry->timeMs, best);
        // `best` answers the same from the records.
        const Result cli = ts::test::runCli({"best", "--db", m_db, "--kernel", "gemm", "--size",
                                             QString::fromStdString(joined(shape)), "--json"});
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        const Json out = Json::parse(cli.out.toStdString());
        QCOMPARE(out.value("rule", ""), std::string("exact"));
        QCOMPARE(out["config"], answer.config);
    }
}

void TestWorkloadExport::unseenShapesGetConfigsThatSatisfyTheKernel() {
    const tunescope::Deployment deployment = tunescope::Deployment::load(m_deployment.toStdString());
    const tunescope::Device host = tunescope::hostCpu();
    const std::vector<std::string> names = deployment.entries().front().sizeNames;
    QCOMPARE(names, std::vector<std::string>({"M", "N", "K"}));
    int checked = 0;
    std::size_t skipped = 0;
    for (const std::vector<std::int64_t>& shape : kUnseen) {
        const tunescope::Answer answer = deployment.lookup({"gemm", shape, host.name, host.architecture});
        const QByteArray where = QByteArray::fromStdString(joined(shape)) + ": " +
                                 tunescope::ruleName(answer.rule) + " " + answer.config.dump().c_str();
        QVERIFY2(answer.rule == tunescope::Rule::NearestShape ||
                     answer.rule == tunescope::Rule::KernelDefault,
                 where.constData());
        // Every entry passed over breaks a constraint there, as the tuning engine sees it...
        skipped += answer.skipped.size();
        for (const tunescope::Skipped& passed : answer.skipped)
            QVERIFY2(!satisfiesKernel(passed.entry->config, shape, names),
                     (where + " skipped " + passed.constraint.c_str()).constData());
        // ... and the answer satisfies them all.
        if (answer.rule == tunescope::Rule::NearestShape) {
            QVERIFY2(satisfiesKernel(answer.config, shape, names), where.constData());
            ++checked;
        }
        // `best` takes the same size, by name too.
        const QString named =
            QString::fromStdString(fmt::format("M={},N={},K={}", shape[0], shape[1], shape[2]));
        const Result cli =
            ts::test::runCli({"best", "--db", m_db, "--kernel", "gemm", "--size", named, "--json"});
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        QCOMPARE(Json::parse(cli.out.toStdString())["config"], answer.config);
    }
    QVERIFY(checked > 0);
    // An entry whose MC exceeds 32 breaks MC <= max(M, 32) at M = 33 next to its own shape: there it is the
    // nearest entry, and it must be passed over (which config is fastest varies from run to run).
    for (const tunescope::Entry& entry : deployment.entries()) {
        if (entry.config.value("MC", 0) <= 33)
            continue;
        std::vector<std::int64_t> shape = entry.shape;
        shape[0] = 33;
        const tunescope::Answer answer = deployment.lookup({"gemm", shape, host.name, host.architecture});
        QVERIFY(!answer.skipped.empty());
        QCOMPARE(answer.skipped[0].entry, &entry);
        QCOMPARE(answer.skipped[0].constraint, std::string("MC <= max(M, 32)"));
        QVERIFY(answer.rule == tunescope::Rule::KernelDefault ||
                satisfiesKernel(answer.config, shape, names));
        ++skipped;
    }
    qInfo("%zu entries were passed over for breaking a constraint", skipped);
}

void TestWorkloadExport::generatedHeaderAnswersAsTheRuntime() {
    const QString header = m_dir.filePath("tuned.h");
    const Result exported =
        ts::test::runCli({"export", "--db", m_db, "--workload", QString::number(m_workload), "--format",
                          "header", "-o", header});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
    const tunescope::Deployment deployment = tunescope::Deployment::load(m_deployment.toStdString());
    const tunescope::Device host = tunescope::hostCpu();
    std::vector<std::vector<std::int64_t>> shapes = kUnseen;
    for (const tunescope::Entry& entry : deployment.entries())
        shapes.push_back(entry.shape);
    std::string program = "#include \"tuned.h\"\n#include <cstdio>\n\nint main() {\n";
    std::string expected;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        program += fmt::format("    {{\n        const std::int64_t s[] = {{{}}};\n", joined(shapes[i], ", "));
        program += "        const tunescope_tuned::Answer a = tunescope_tuned::lookup(\"gemm\", s, 3, " +
                   nlohmann::json(host.name).dump() + ");\n";
        program += "        const tunescope_tuned::Param* mc = a.find(\"MC\");\n"
                   "        std::printf(\"%d %d %zu\\n\", static_cast<int>(a.rule), mc ? "
                   "static_cast<int>(mc->number) "
                   ": -1, a.skipped);\n    }\n";
        const tunescope::Answer answer = deployment.lookup({"gemm", shapes[i], host.name, ""});
        expected += fmt::format("{} {} {}\n", static_cast<int>(answer.rule), answer.config.value("MC", -1),
                                answer.skipped.size());
    }
    program += "    return 0;\n}\n";
    std::ofstream(m_dir.filePath("check.cpp").toStdString()) << program;
    QProcess build;
    build.setWorkingDirectory(m_dir.path());
    build.start("g++",
                {"-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Werror", "check.cpp", "-o", "check"});
    QVERIFY(build.waitForFinished(180000));
    QVERIFY2(build.exitCode() == 0, build.readAllStandardError().constData());
    QProcess run;
    run.start(m_dir.filePath("check"));
    QVERIFY(run.waitForFinished(30000));
    QCOMPARE(run.exitCode(), 0);
    QCOMPARE(QString::fromUtf8(run.readAllStandardOutput()), QString::fromStdString(expected));
}

void TestWorkloadExport::failedTasksAreNamedAndLeftOut() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath("mixed.json");
    std::ofstream(file.toStdString()) << Json{
        {"name", "mixed"},
        {"device", "replay"},
        {"tasks",
         {{{"name", "pnpoly"},
           {"dataset", TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz"},
           {"weight", 2}},
          {{"name", "nothing fits"},
           {"dataset", TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz"},
           {"constraints", {"1 == 0"}}}}}}.dump();
    const QString db = dir.filePath("records.db");
    const Result tuned = ts::test::runCli({"workload", "tune", file, "--db", db, "--budget", "6"});
    QVERIFY2(tuned.exitCode == 0 || tuned.exitCode == 1, qPrintable(tuned.err));
    std::int64_t id = 0;
    {
        RecordStore store(db.toStdString(), DatabaseAccess::ReadOnly);
        QCOMPARE(store.workloads().size(), std::size_t{1});
        const WorkloadRecord workload = store.workloads().front();
        id = workload.id;
        QCOMPARE(workload.tasks.at(1).status, std::string("failed"));
    }
    const QString out = dir.filePath("deployment.json");
    const Result exported = ts::test::runCli(
        {"export", "--db", db, "--workload", QString::number(id), "--format", "deploy", "-o", out});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
    QVERIFY2(exported.err.contains(
                 QString("warning: task 2 (\"nothing fits\") of workload %1 failed, so it is left "
                         "out: ")
                     .arg(id)),
             qPrintable(exported.err));
    const tunescope::Deployment deployment = tunescope::Deployment::load(out.toStdString());
    QCOMPARE(deployment.entries().size(), std::size_t{1});
    QCOMPARE(deployment.entries()[0].kernel, std::string("cn_pnpoly"));
    QCOMPARE(
        deployment.lookup({"cn_pnpoly", deployment.entries()[0].shape, deployment.entries()[0].device, ""})
            .rule,
        tunescope::Rule::Exact);
}

void TestWorkloadExport::missingOrEmptyWorkloadsAreOneSentence() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    std::int64_t failed = 0;
    std::int64_t untuned = 0;
    {
        RecordStore store(db.toStdString());
        WorkloadRecord workload;
        workload.name = "all failed";
        workload.device = "replay";
        workload.scheduler = "round_robin";
        workload.options = "{}";
        workload.plan = "{}";
        WorkloadTaskRecord task;
        task.name = "a";
        task.status = "failed";
        task.error = "The kernel does not build.";
        workload.tasks.push_back(task);
        failed = store.beginWorkload(workload);
        workload.name = "not tuned";
        workload.tasks[0].status = "pending";
        untuned = store.beginWorkload(workload);
    }
    const QString out = dir.filePath("out.json");
    std::ofstream(out.toStdString()) << "earlier output\n";
    const QByteArray before = fileBytes(db);
    const auto exportOf = [&](const QStringList& extra) {
        return ts::test::runCli(QStringList{"export", "--db", db, "-o", out} + extra);
    };
    const Result missing = exportOf({"--workload", "99", "--format", "deploy"});
    QCOMPARE(missing.exitCode, 1);
    QCOMPARE(missing.err.trimmed(),
             QString("tunescope-cli: Workload 99 is not in the records database %1.").arg(db));
    const Result none = exportOf({"--workload", QString::number(failed), "--format", "header"});
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(
        none.err.contains(QString("warning: task 1 (\"a\") of workload %1 failed, so it is left out: The "
                                  "kernel does not build.\n")
                              .arg(failed)),
        qPrintable(none.err));
    QVERIFY2(none.err.contains(
                 QString("tunescope-cli: Workload %1 (\"all failed\") of the records database %2 has no task "
                         "with a session to export: each failed or was not tuned yet.")
                     .arg(failed)
                     .arg(db)),
             qPrintable(none.err));
    const Result pending = exportOf({"--workload", QString::number(untuned), "--format", "deploy"});
    QCOMPARE(pending.exitCode, 1);
    QVERIFY2(pending.err.contains(
                 QString("warning: task 1 (\"a\") of workload %1 was not tuned yet, so it is left "
                         "out.\n")
                     .arg(untuned)) &&
                 pending.err.contains("has no task with a session to export"),
             qPrintable(pending.err));
    const Result both = exportOf({"--workload", "1", "--session", "1", "--format", "deploy"});
    QCOMPARE(both.exitCode, 1);
    QCOMPARE(
        both.err.trimmed(),
        QString("tunescope-cli: --workload and --session both choose what to export: give one of them."));
    const Result trials = exportOf({"--workload", "1", "--format", "jsonl"});
    QCOMPARE(trials.exitCode, 1);
    QCOMPARE(
        trials.err.trimmed(),
        QString(
            "tunescope-cli: --workload exports a deployment: use --format deploy or header, not \"jsonl\"."));
    // Nothing was written over, nothing recorded changed.
    QCOMPARE(fileBytes(out), QByteArray("earlier output\n"));
    QCOMPARE(fileBytes(db), before);
}

QTEST_APPLESS_MAIN(TestWorkloadExport)
#include "TestWorkloadExport.moc"
