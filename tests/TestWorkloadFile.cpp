// The workload file (docs/workloads.md) and the workload plan: every shipped workload reads and every task's
// size leaves valid configs (without building anything), the plan's JSON round trip and its checks, the
// several-sizes shorthand gives the plan of the equivalent file, the command line wins over the file, paths
// are relative to the file, and hostile files (types, unknown keys, targets, names, deep, wide, huge, not a
// regular file) are refused with one sentence naming the file, the task and the key.
#include "ErrorOf.h"
#include "StatusCompare.h"

#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpecReader.h"
#include "util/BoundedJson.h"
#include "util/Error.h"
#include "workload/WorkloadFile.h"
#include "workload/WorkloadPlan.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

using namespace ts;

namespace {

namespace fs = std::filesystem;

const fs::path kWorkloads = TUNESCOPE_RESOURCES "/workloads";
const fs::path kDatasets = TUNESCOPE_RESOURCES "/datasets";

void write(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string readError(const fs::path& file, const WorkloadDefaults& defaults = {}) {
    return ts::test::errorOf([&] { WorkloadFile::read(file, defaults); });
}

// A file of one gemm task with `task` spliced into it after its name ("a").
std::string oneTask(const std::string& task, const std::string& top = R"("device": "cpu")") {
    return R"({"name": "w", )" + top + R"(, "tasks": [{"name": "a", )" + task + "}]}";
}

// QCOMPARE of std::string shows no values when it fails; this shows both.
#define COMPARE_TEXT(actual, expected)                                                                       \
    QCOMPARE(QString::fromStdString(actual), QString::fromStdString(expected))

#define VERIFY_CONTAINS(text, part)                                                                          \
    QVERIFY2(QString::fromStdString(text).contains(QString::fromStdString(part)),                            \
             qPrintable(QString::fromStdString(text)))

SessionPlan kernelPlan(const std::string& kernel, const std::string& size) {
    SessionPlan plan;
    plan.backend = "cpu";
    plan.kernel.kernel = kernel;
    plan.kernel.size = size;
    plan.budget = 40;
    return plan;
}

WorkloadPlan fullWorkload() {
    WorkloadPlan w;
    w.name = "two gemms";
    w.backend = "cpu";
    w.file = "/data/w.json";
    w.source = "made up";
    w.scheduler = "proportional";
    w.schedulerOptions = {{"alpha", "0.2"}, {"window", "3"}};
    w.seed = 99;
    w.budget = 64;
    SessionPlan a = kernelPlan("gemm", "M=128,N=768,K=768");
    a.strategy = "tpe";
    a.options = {{"startup", "7"}};
    a.constraints = {"THREADS == 1"};
    a.seed = 99;
    a.mode = SpaceMode::Product;
    a.batchSize = 3;
    a.kernel.timing.repeat = 3;
    a.kernel.cacheDir = "/tmp/builds";
    a.transfer = true;
    SessionPlan b = kernelPlan("softmax", "rows=8,cols=64");
    b.kernel.kernel.clear();
    b.kernel.kernelSpec = TUNESCOPE_KERNELS "/softmax/kernel.json";
    w.tasks = {{"ffn.up", 12, a}, {"softmax", 0.5, b}};
    return w;
}

std::string taskList(const WorkloadPlan& plan) {
    std::string text;
    for (const WorkloadTaskPlan& task : plan.tasks)
        text += task.name + "=" + std::to_string(task.weight) + ";";
    return text;
}

} // namespace

class TestWorkloadFile : public QObject {
    Q_OBJECT

private slots:
    // Every file in resources/workloads reads; each kernel task's size parses against its kernel and leaves a
    // non-empty constrained space on the workload's device; each dataset task's file exists.
    void shippedWorkloadsReadAndLeaveValidConfigs() {
        std::set<std::string> names;
        const KernelCatalog catalog;
        for (const fs::directory_entry& entry : fs::directory_iterator(kWorkloads)) {
            if (entry.path().extension() != ".json")
                continue;
            const WorkloadPlan plan = WorkloadFile::read(entry.path(), {});
            names.insert(entry.path().filename().string());
            QVERIFY2(!plan.source.empty(), entry.path().c_str());
            QCOMPARE(plan.file, entry.path().lexically_normal().string());
            for (const WorkloadTaskPlan& task : plan.tasks) {
                const std::string where = entry.path().filename().string() + ": " + task.name;
                QCOMPARE(task.plan.backend, plan.backend);
                QVERIFY2(task.weight > 0, where.c_str());
                if (!task.plan.measuresKernel()) {
                    QVERIFY2(fs::path(task.plan.dataset).is_absolute(), where.c_str());
                    QVERIFY2(fs::is_regular_file(task.plan.dataset), where.c_str());
                    continue;
                }
                const KernelSpec& spec = catalog.find(task.plan.kernel.kernel);
                const ProblemSize size = parseProblemSize(spec, task.plan.kernel.size);
                const KernelSpace space(spec, plan.backend, size);
                QVERIFY2(space.space().validCount() > 0, where.c_str());
            }
        }
        const std::set<std::string> shipped{"bert-base-gemm.json", "llama3-8b-gemm.json",
                                            "resnet50-conv.json", "replay-demo.json"};
        for (const std::string& name : shipped)
            QVERIFY2(names.count(name) == 1, name.c_str());
    }

    // The shapes the docs promise: BERT-base's four GEMMs per layer and the per-head attention matmuls,
    // Llama-3-8B's projections at batch 1 and 16, ResNet-50's 46 stride-1 convolutions.
    void shippedShapesAreTheModels() {
        const WorkloadPlan bert = WorkloadFile::read(kWorkloads / "bert-base-gemm.json", {});
        QCOMPARE(bert.backend, std::string("cpu"));
        COMPARE_TEXT(taskList(bert),
                     std::string("attention.qkv=12.000000;attention.output=12.000000;"
                                 "ffn.up=12.000000;ffn.down=12.000000;attention.scores=144.000000;"
                                 "attention.context=144.000000;"));
        COMPARE_TEXT(bert.tasks[0].plan.kernel.size, std::string("M=128,N=2304,K=768"));
        COMPARE_TEXT(bert.tasks[3].plan.kernel.size, std::string("M=128,N=768,K=3072"));
        COMPARE_TEXT(bert.tasks[4].plan.kernel.size, std::string("M=128,N=128,K=64"));
        COMPARE_TEXT(bert.tasks[5].plan.kernel.size, std::string("M=128,N=64,K=128"));

        const WorkloadPlan llama = WorkloadFile::read(kWorkloads / "llama3-8b-gemm.json", {});
        QCOMPARE(llama.backend, std::string("cuda"));
        QCOMPARE(llama.tasks.size(), std::size_t{10});
        double weights = 0;
        std::set<std::string> sizes;
        for (const WorkloadTaskPlan& task : llama.tasks) {
            weights += task.weight;
            sizes.insert(task.plan.kernel.size);
        }
        QCOMPARE(weights, 2.0 * (7 * 32 + 1)); // seven projections of 32 layers and lm_head, at two batches
        QCOMPARE(sizes.size(), llama.tasks.size());
        QVERIFY(sizes.count("M=16,N=1024,K=4096") == 1);
        QVERIFY(sizes.count("M=1,N=128256,K=4096") == 1);

        const WorkloadPlan resnet = WorkloadFile::read(kWorkloads / "resnet50-conv.json", {});
        QCOMPARE(resnet.backend, std::string("cuda"));
        weights = 0;
        sizes.clear();
        for (const WorkloadTaskPlan& task : resnet.tasks) {
            weights += task.weight;
            sizes.insert(task.plan.kernel.size);
        }
        QCOMPARE(weights, 46.0); // 53 convolutions less the stem and six stride-2 ones
        QCOMPARE(sizes.size(), resnet.tasks.size());
        QVERIFY(sizes.count("N=1,C=64,H=58,W=58,K=64,R=3,S=3") == 1);

        const WorkloadPlan demo = WorkloadFile::read(kWorkloads / "replay-demo.json", {});
        QCOMPARE(demo.backend, std::string("replay"));
        QCOMPARE(demo.tasks.size(), std::size_t{5});
    }

    void jsonRoundTripKeepsEveryField() {
        const WorkloadPlan plan = fullWorkload();
        const nlohmann::json json = plan.toJson();
        const WorkloadPlan back =
            WorkloadPlan::fromJson(parseBoundedJson(json.dump(), "the plan"), "plan of workload 1");
        QCOMPARE(QString::fromStdString(back.toJson().dump()), QString::fromStdString(json.dump()));
        QCOMPARE(back.name, plan.name);
        QCOMPARE(back.backend, plan.backend);
        QCOMPARE(back.file, plan.file);
        QCOMPARE(back.source, plan.source);
        QCOMPARE(back.scheduler, plan.scheduler);
        QVERIFY(back.schedulerOptions == plan.schedulerOptions);
        QCOMPARE(back.seed, plan.seed);
        QCOMPARE(back.budget, plan.budget);
        COMPARE_TEXT(taskList(back), taskList(plan));
        for (std::size_t i = 0; i < plan.tasks.size(); ++i)
            QCOMPARE(back.tasks[i].plan.toJson().dump(), plan.tasks[i].plan.toJson().dump());
        QCOMPARE(back.tasks[0].plan.options.at("startup"), std::string("7"));
        COMPARE_TEXT(back.tasks[1].plan.kernel.kernelSpec, plan.tasks[1].plan.kernel.kernelSpec);
        back.check();
    }

    void fromJsonNamesTheBadKey_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected");
        QTest::newRow("budget") << "budget"
                                << R"("lots")"
                                << R"(The plan of workload 4 has "budget": "lots")";
        QTest::newRow("tasks") << "tasks"
                               << "{}"
                               << R"(The plan of workload 4 has "tasks": {}, which is not)";
        QTest::newRow("task") << "tasks"
                              << "[3]"
                              << "The plan of workload 4, task 1 is not a JSON object.";
        QTest::newRow("weight") << "tasks"
                                << R"([{"name": "a", "weight": "x"}])"
                                << R"(The plan of workload 4, task 1 has "weight": "x")";
        QTest::newRow("task plan") << "tasks"
                                   << R"([{"name": "a", "plan": {"budget": "x"}}])"
                                   << R"(The plan of workload 4, task 1 has "budget": "x")";
        QTest::newRow("options") << "scheduler_options"
                                 << R"({"alpha": [1]})"
                                 << R"(The plan of workload 4 has "scheduler_options.alpha": [1])";
    }
    void fromJsonNamesTheBadKey() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        nlohmann::json json = fullWorkload().toJson();
        json[key.toStdString()] = nlohmann::json::parse(value.toStdString());
        VERIFY_CONTAINS(ts::test::errorOf([&] { WorkloadPlan::fromJson(json, "plan of workload 4"); }),
                        expected.toStdString());
    }

    // check(): one sentence naming the field, and the task by number and name.
    void checkNamesTheTask_data() {
        QTest::addColumn<QString>("broken");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no task") << "no task"
                                 << R"(The workload "two gemms" has no task.)";
        QTest::newRow("duplicate")
            << "duplicate"
            << R"(Task 2 ("ffn.up") has the same name as task 1: task names must be unique.)";
        QTest::newRow("no name") << "no name"
                                 << "Task 2 has no name.";
        QTest::newRow("negative weight")
            << "negative weight"
            << R"(Task 2 ("softmax") has weight -1, which is not a finite number of 0 or more.)";
        QTest::newRow("nan weight") << "nan weight"
                                    << R"(Task 2 ("softmax") has weight nan, which is not)";
        QTest::newRow("budget")
            << "budget"
            << "The budget 1 is below the 2 tasks of positive weight: each needs at least one "
               "trial.";
        QTest::newRow("backend")
            << "backend"
            << R"(Task 2 ("softmax") is measured on cuda, not on the workload's backend cpu.)";
        QTest::newRow("workload backend")
            << "workload backend"
            << R"(The workload's backend "gpu" is not one of replay, cpu or cuda.)";
        QTest::newRow("task plan")
            << "task plan"
            << R"(Task 2 ("softmax"): The repeat count 0 is not a positive number of samples.)";
    }
    void checkNamesTheTask() {
        QFETCH(QString, broken);
        QFETCH(QString, expected);
        WorkloadPlan plan = fullWorkload();
        plan.check();
        if (broken == "no task")
            plan.tasks.clear();
        else if (broken == "duplicate")
            plan.tasks[1].name = "ffn.up";
        else if (broken == "no name")
            plan.tasks[1].name.clear();
        else if (broken == "negative weight")
            plan.tasks[1].weight = -1;
        else if (broken == "nan weight")
            plan.tasks[1].weight = std::nan("");
        else if (broken == "budget")
            plan.budget = 1;
        else if (broken == "backend")
            plan.tasks[1].plan.backend = "cuda";
        else if (broken == "workload backend")
            plan.backend = "gpu";
        else if (broken == "task plan")
            plan.tasks[1].plan.kernel.timing.repeat = 0;
        VERIFY_CONTAINS(ts::test::errorOf([&] { plan.check(); }), expected.toStdString());
        // A task of weight 0 needs no trial of its own.
        WorkloadPlan zero = fullWorkload();
        zero.tasks[1].weight = 0;
        zero.budget = 1;
        zero.check();
    }

    // `tune --kernel gemm --size A --size B`: the plan of the file with those tasks, whatever the size
    // grammar each is given in.
    void shorthandEqualsTheFile() {
        SessionPlan base = kernelPlan("gemm", "");
        base.strategy = "tpe";
        base.options = {{"startup", "5"}};
        base.constraints = {"THREADS == 1"};
        base.seed = 7;
        base.batchSize = 4;
        base.mode = SpaceMode::Product;
        base.budget = 90;
        base.transfer = true;
        base.kernel.timing.repeat = 3;
        base.kernel.timeoutS = 4;
        base.kernel.cacheDir = "/tmp/tunescope-builds";
        const WorkloadPlan shorthand = WorkloadFile::ofSizes(base, {"512,512,512", "M=128,K=768", "N=64"});
        COMPARE_TEXT(taskList(shorthand),
                     std::string("gemm M=512,N=512,K=512=1.000000;gemm M=128,N=1024,K=768=1.000000;"
                                 "gemm M=1024,N=64,K=1024=1.000000;"));
        QCOMPARE(shorthand.name, std::string("gemm at 3 sizes"));
        QCOMPARE(shorthand.budget, std::int64_t{90});
        QCOMPARE(shorthand.seed, std::uint64_t{7});

        QTemporaryDir dir;
        const fs::path file = dir.filePath("w.json").toStdString();
        write(file, R"({"name": "gemm at 3 sizes", "device": "cuda", "tasks": [
            {"name": "gemm M=512,N=512,K=512", "kernel": "gemm", "size": {"M": 512, "N": 512, "K": 512}},
            {"name": "gemm M=128,N=1024,K=768", "kernel": "gemm", "size": "128,1024,768", "weight": 1},
            {"name": "gemm M=1024,N=64,K=1024", "kernel": "gemm", "size": "K=1024,N=64"}]})");
        WorkloadPlan fromFile = WorkloadFile::read(file, WorkloadFile::defaultsOf(base));
        QCOMPARE(fromFile.file, file.string());
        fromFile.file.clear();
        QCOMPARE(QString::fromStdString(fromFile.toJson().dump(1)),
                 QString::fromStdString(shorthand.toJson().dump(1)));
        const SessionPlan& task = shorthand.tasks[1].plan;
        QCOMPARE(task.strategy, std::string("tpe"));
        QCOMPARE(task.kernel.timing.repeat, 3);
        QCOMPARE(task.seed, std::uint64_t{7});
        QCOMPARE(task.budget, std::int64_t{90});

        VERIFY_CONTAINS(ts::test::errorOf([&] {
                            WorkloadFile::ofSizes(base, {"M=512", "512,1024,1024"});
                        }),
                        R"(Task 2 ("gemm M=512,N=1024,K=1024") has the same name as task 1)");
        VERIFY_CONTAINS(ts::test::errorOf([&] { WorkloadFile::ofSizes(base, {"M=0"}); }),
                        R"(The size "M=0")");
    }

    // The command line wins over the file's defaults and tasks; a strategy replaces the options of the levels
    // before it; constraints add up in order: file defaults, task, command line.
    void commandLineWinsOverTheFile() {
        QTemporaryDir dir;
        const fs::path file = dir.filePath("w.json").toStdString();
        write(file, R"({"name": "w", "device": "cuda",
            "defaults": {"strategy": "tpe", "options": {"startup": 4, "gamma": 0.3}, "batch_size": 2,
                         "constraints": ["THREADS == 1"], "space": "product"},
            "tasks": [
              {"name": "a", "kernel": "gemm", "size": "M=64", "options": {"startup": "9"}, "constraints": ["PACK"]},
              {"name": "b", "kernel": "gemm", "strategy": "random_sample", "batch_size": 5, "transfer": true,
               "cold": true}]})");
        const WorkloadPlan plain = WorkloadFile::read(file, {});
        QCOMPARE(plain.backend, std::string("cuda"));
        const SessionPlan& a = plain.tasks[0].plan;
        QCOMPARE(a.strategy, std::string("tpe"));
        QVERIFY((a.options == std::map<std::string, std::string>{{"startup", "9"}, {"gamma", "0.3"}}));
        QCOMPARE(a.batchSize, std::size_t{2});
        COMPARE_STATUS(a.mode, SpaceMode::Product);
        QCOMPARE(a.constraints, (std::vector<std::string>{"THREADS == 1", "PACK"}));
        COMPARE_TEXT(a.kernel.size, std::string("M=64,N=1024,K=1024"));
        const SessionPlan& b = plain.tasks[1].plan;
        QCOMPARE(b.strategy, std::string("random_sample"));
        QVERIFY(b.options.empty()); // the defaults' options were tpe's
        QCOMPARE(b.batchSize, std::size_t{5});
        QVERIFY(b.transfer);
        QVERIFY(b.cold && !a.cold);                                       // warm unless a level says cold
        COMPARE_TEXT(b.kernel.size, std::string("M=1024,N=1024,K=1024")); // the spec's defaults, written out

        WorkloadDefaults cli;
        cli.backend = "cpu";
        cli.search.options = {{"gamma", "0.5"}};
        cli.search.batchSize = 16;
        cli.search.constraints = {"UNROLL == 1"};
        cli.measurement.timing.repeat = 2;
        cli.seed = 3;
        cli.budget = 50;
        cli.scheduler = "round_robin";
        const WorkloadPlan merged = WorkloadFile::read(file, cli);
        QCOMPARE(merged.backend, std::string("cpu"));
        QCOMPARE(merged.scheduler, std::string("round_robin"));
        QCOMPARE(merged.budget, std::int64_t{50});
        const SessionPlan& ma = merged.tasks[0].plan;
        QCOMPARE(ma.backend, std::string("cpu"));
        QVERIFY((ma.options == std::map<std::string, std::string>{{"startup", "9"}, {"gamma", "0.5"}}));
        QCOMPARE(ma.batchSize, std::size_t{16});
        QCOMPARE(ma.constraints, (std::vector<std::string>{"THREADS == 1", "PACK", "UNROLL == 1"}));
        QCOMPARE(ma.kernel.timing.repeat, 2);
        QCOMPARE(ma.seed, std::uint64_t{3});
        QCOMPARE(ma.budget, std::int64_t{50});

        cli.search.strategy = "xgb";
        const WorkloadPlan replaced = WorkloadFile::read(file, cli);
        QVERIFY((replaced.tasks[0].plan.options == std::map<std::string, std::string>{{"gamma", "0.5"}}));
        QCOMPARE(replaced.tasks[1].plan.strategy, std::string("xgb"));
    }

    // Paths in the file are relative to its folder, not to the working directory.
    void relativePathsResolveAgainstTheFile() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        fs::create_directories(root / "work" / "data");
        fs::copy(TUNESCOPE_KERNELS "/softmax", root / "softmax", fs::copy_options::recursive);
        fs::copy_file(kDatasets / "pnpoly_RTX_3090.json.gz", root / "work" / "data" / "p.json.gz");
        write(root / "work" / "replay.json",
              R"({"name": "r", "tasks": [{"name": "p", "dataset": "data/p.json.gz"}]})");
        write(
            root / "work" / "kernel.json",
            R"({"name": "k", "device": "cpu", "tasks": [{"name": "s", "kernel_spec": "../softmax/kernel.json",
                  "size": {"rows": 8}}]})");
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(QDir::tempPath()));
        const WorkloadPlan replay = WorkloadFile::read(root / "work" / "replay.json", {});
        const WorkloadPlan kernel = WorkloadFile::read(root / "work" / "kernel.json", {});
        // And a relative path to the file itself, from the file's folder.
        QVERIFY(QDir::setCurrent(QString::fromStdString((root / "work").string())));
        const WorkloadPlan here = WorkloadFile::read("replay.json", {});
        QVERIFY(QDir::setCurrent(before));
        QCOMPARE(replay.backend, std::string("replay")); // implied: every task replays a dataset
        COMPARE_TEXT(replay.tasks[0].plan.dataset, (root / "work" / "data" / "p.json.gz").string());
        COMPARE_TEXT(here.tasks[0].plan.dataset, replay.tasks[0].plan.dataset);
        QCOMPARE(here.file, (root / "work" / "replay.json").string());
        COMPARE_TEXT(kernel.tasks[0].plan.kernel.kernelSpec, (root / "softmax" / "kernel.json").string());
        QVERIFY(kernel.tasks[0].plan.kernel.kernel.empty());
        COMPARE_TEXT(kernel.tasks[0].plan.kernel.size, std::string("rows=8,cols=1024"));
    }

    // Each hostile file: one sentence with the file's name and the key parts of the problem.
    void hostileFilesAreRefused_data() {
        QTest::addColumn<QString>("content");
        QTest::addColumn<QString>("expected");
        const auto row = [](const char* name, const std::string& content, const std::string& expected) {
            QTest::newRow(name) << QString::fromStdString(content) << QString::fromStdString(expected);
        };
        row("not json", "{ nope", "not valid JSON");
        row("empty", "", "not valid JSON");
        row("nul bytes", std::string("{\"name\": \"w\0\", ", 14), "not valid JSON");
        row("array", "[1, 2]", "the top level is not a JSON object.");
        row("unknown top key", R"({"name": "w", "devise": "cpu", "tasks": []})",
            R"(the workload has the unknown key "devise" (known: name, device, source, defaults, tasks).)");
        row("no name", R"({"device": "cpu", "tasks": []})", R"(the workload has no "name".)");
        row("name type", R"({"name": 5, "tasks": []})",
            R"(the workload has "name": 5, which is not a string.)");
        row("device", R"({"name": "w", "device": "gpu", "tasks": [{"name": "a", "kernel": "gemm"}]})",
            R"(the workload has "device": "gpu", which is not "cpu", "cuda" or "replay".)");
        row("no tasks", R"({"name": "w", "device": "cpu"})", R"(the workload has no "tasks".)");
        row("tasks type", R"({"name": "w", "tasks": {"a": 1}})",
            R"(the workload has "tasks": {"a":1}, which is not)");
        row("empty tasks", R"({"name": "w", "tasks": []})", R"(the workload has an empty "tasks" list)");
        row("task type", R"({"name": "w", "tasks": ["gemm"]})",
            R"(task 1 is "gemm", which is not an object.)");
        row("task no name", R"({"name": "w", "tasks": [{"kernel": "gemm"}]})", R"(task 1 has no "name".)");
        row("task name type", R"({"name": "w", "tasks": [{"name": ["a"]}]})", R"(task 1 has "name": ["a"])");
        row("task name control", R"({"name": "w", "tasks": [{"name": "a\u0007b"}]})",
            R"(task 1 has "name": "a\u0007b", which is not a name of at most 200 characters)");
        row("workload name control", "{\"name\": \"two\\nlines\", \"tasks\": []}",
            R"(the workload has "name": "two\nlines", which is not a name of at most 200 characters)");
        row("task name long", R"({"name": "w", "tasks": [{"name": ")" + std::string(201, 'x') + R"("}]})",
            "which is not a name of at most 200 characters");
        row("task unknown key", oneTask(R"("kernel": "gemm", "sise": "1,1,1")"),
            R"(task 1 ("a") has the unknown key "sise" (known: name, weight, kernel, kernel_spec, dataset, size,)");
        row("two targets", oneTask(R"("kernel": "gemm", "dataset": "x.json")"),
            R"(task 1 ("a") has both "kernel" and "dataset": give one target)");
        row("no target", oneTask(R"("weight": 2)"),
            R"(task 1 ("a") has no target: give one of "kernel", "kernel_spec" or "dataset".)");
        row("duplicate name",
            R"({"name": "w", "device": "cpu", "tasks": [{"name": "a", "kernel": "gemm"}, {"name": "b", "kernel": "gemm"},
                {"name": "a", "kernel": "gemm"}]})",
            R"(task 3 ("a") has the same "name" as task 1: task names must be unique.)");
        row("negative weight", oneTask(R"("kernel": "gemm", "weight": -2)"),
            R"(task 1 ("a") has "weight": -2, which is not a number of 0 or more)");
        row("weight text", oneTask(R"("kernel": "gemm", "weight": "12")"),
            R"(task 1 ("a") has "weight": "12")");
        row("kernel type", oneTask(R"("kernel": 3)"),
            R"(task 1 ("a") has "kernel": 3, which is not a string.)");
        row("size type", oneTask(R"("kernel": "gemm", "size": [1, 2, 3])"),
            R"(task 1 ("a") has "size": [1,2,3])");
        row("size value", oneTask(R"("kernel": "gemm", "size": {"M": 1.5})"),
            R"(task 1 ("a") has "size.M": 1.5, which is not a whole number.)");
        row("size empty", oneTask(R"("kernel": "gemm", "size": {})"),
            R"(task 1 ("a") has an empty "size" object)");
        row("size zero", oneTask(R"("kernel": "gemm", "size": "M=0")"),
            R"(task 1 ("a"), "size": The size "M=0")");
        row("size name", oneTask(R"("kernel": "gemm", "size": {"Q": 4})"),
            R"(task 1 ("a"), "size": The size "Q=4")");
        row("size count", oneTask(R"("kernel": "gemm", "size": "1,2")"),
            R"(task 1 ("a"), "size": The size "1,2")");
        row("unknown kernel", oneTask(R"("kernel": "gemmm")"),
            R"(task 1 ("a"), "kernel": Unknown kernel "gemmm")");
        row("no variant", oneTask(R"("kernel": "gemm_tc")"),
            R"(task 1 ("a") has "kernel": gemm_tc, which has no cpu variant (it has: cuda).)");
        row("spec missing", oneTask(R"("kernel_spec": "nothere/kernel.json")"),
            R"(task 1 ("a"), "kernel_spec": )");
        row("dataset missing", oneTask(R"("dataset": "nothere.json")", R"("device": "replay")"),
            R"(task 1 ("a") has "dataset": )");
        row("dataset on cpu", oneTask(R"("dataset": "x.json")"),
            R"(task 1 ("a") has "dataset", but the workload is measured on cpu (its "device"))");
        row("kernel on replay", oneTask(R"("kernel": "gemm")", R"("device": "replay")"),
            R"(task 1 ("a") has "kernel", but the workload is measured on replay (its "device"))");
        row("no device", oneTask(R"("kernel": "gemm")", R"("source": "s")"),
            R"(the workload has no "device": task 1 ("a") measures a kernel)");
        row("size of dataset", oneTask(R"("dataset": "x.json", "size": "8")", R"("device": "replay")"),
            R"(task 1 ("a") has "size", but a dataset task is replayed at the size it was recorded at.)");
        row("defaults type", oneTask(R"("kernel": "gemm")", R"("device": "cpu", "defaults": 3)"),
            R"(the workload has "defaults": 3, which is not an object.)");
        row("defaults key",
            oneTask(R"("kernel": "gemm")", R"("device": "cpu", "defaults": {"batchsize": 3})"),
            R"("defaults" has the unknown key "batchsize" (known: strategy, options, space, batch_size,)");
        row("batch zero", oneTask(R"("kernel": "gemm", "batch_size": 0)"),
            R"(task 1 ("a") has "batch_size": 0, which is not a whole number of 1 or more.)");
        row("batch negative",
            oneTask(R"("kernel": "gemm")", R"("device": "cpu", "defaults": {"batch_size": -4})"),
            R"("defaults" has "batch_size": -4, which is not a whole number of 1 or more.)");
        row("batch float", oneTask(R"("kernel": "gemm", "batch_size": 2.5)"),
            R"(task 1 ("a") has "batch_size": 2.5)");
        row("space", oneTask(R"("kernel": "gemm", "space": "sideways")"),
            R"(task 1 ("a") has "space": "sideways", which is not "constrained" or "product".)");
        row("constraints type", oneTask(R"("kernel": "gemm", "constraints": "MC <= 64")"),
            R"(task 1 ("a") has "constraints": "MC <= 64", which is not a list of strings.)");
        row("constraint type", oneTask(R"("kernel": "gemm", "constraints": ["MC <= 64", 3])"),
            R"(task 1 ("a") has "constraints[1]": 3, which is not a non-empty string.)");
        row("options type", oneTask(R"("kernel": "gemm", "options": ["startup=3"])"),
            R"(task 1 ("a") has "options": ["startup=3"], which is not an object of option values.)");
        row("option value", oneTask(R"("kernel": "gemm", "options": {"startup": {"x": 1}})"),
            R"(task 1 ("a") has "options.startup": {"x":1})");
        row("strategy empty", oneTask(R"("kernel": "gemm", "strategy": "")"),
            R"(task 1 ("a") has an empty "strategy".)");
        row("transfer type", oneTask(R"("kernel": "gemm", "transfer": "yes")"),
            R"(task 1 ("a") has "transfer": "yes", which is not true or false.)");
        std::ifstream shipped(kWorkloads / "bert-base-gemm.json");
        const std::string whole((std::istreambuf_iterator<char>(shipped)), std::istreambuf_iterator<char>());
        row("truncated", whole.substr(0, whole.size() / 2), "not valid JSON");
    }
    void hostileFilesAreRefused() {
        QFETCH(QString, content);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const fs::path file = dir.filePath("hostile.json").toStdString();
        const QByteArray bytes = content.toUtf8();
        write(file, std::string(bytes.constData(), static_cast<std::size_t>(bytes.size())));
        const std::string error = readError(file);
        VERIFY_CONTAINS(error, file.string() + ": ");
        VERIFY_CONTAINS(error, expected.toStdString());
        QVERIFY2(error.find('\n') == std::string::npos, error.c_str());
    }

    // Generated inputs past the limits: nesting, keys of one object, bytes, tasks.
    void oversizedFilesAreRefused() {
        QTemporaryDir dir;
        const fs::path file = dir.filePath("big.json").toStdString();
        const std::string display = file.string();

        write(file, "{\"name\": " + std::string(100000, '['));
        COMPARE_TEXT(readError(file), jsonTooDeepMessage(display));

        std::string wide = "{\"name\": \"w\", \"tasks\": [{\"name\": \"a\", \"kernel\": \"gemm\"";
        for (std::size_t i = 0; i <= kMaxJsonObjectKeys; ++i)
            wide += ", \"k" + std::to_string(i) + "\": 0";
        write(file, wide + "}]}");
        COMPARE_TEXT(readError(file), jsonTooWideMessage(display));

        // Valid JSON, but bigger than the limit: refused by its size, not parsed.
        write(file, "{\"name\": \"w\", \"source\": \"" + std::string(WorkloadFile::kMaxBytes, 'x') + "\"}");
        COMPARE_TEXT(readError(file), display + ": larger than 4 MiB, the limit for a workload file.");

        // Not JSON, with a string of a megabyte unclosed: the sentence quotes only the start of it.
        write(file, "{\"name\": \"" + std::string(1 << 20, 'x'));
        const std::string cut = readError(file);
        VERIFY_CONTAINS(cut, display + ": not valid JSON (");
        QVERIFY2(cut.size() < 400 + display.size(), cut.c_str());

        std::string many = "{\"name\": \"w\", \"device\": \"replay\", \"tasks\": [";
        for (std::size_t i = 0; i <= WorkloadFile::kMaxTasks; ++i)
            many += std::string(i ? "," : "") + "{\"name\":\"t" + std::to_string(i) + "\",\"dataset\":\"d\"}";
        write(file, many + "]}");
        QVERIFY(fs::file_size(file) < WorkloadFile::kMaxBytes);
        COMPARE_TEXT(readError(file),
                     display + ": the workload has 10001 tasks, more than the limit of 10000.");
    }

    // What is not a readable regular file is refused before it is opened: a fifo would block the read
    // forever. (As root, a chmod 000 file stays readable, so a folder and a fifo stand in for it.)
    void notAFileIsRefused() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        COMPARE_TEXT(readError(root / "absent.json"), (root / "absent.json").string() + ": no such file.");
        fs::create_directory(root / "folder.json");
        COMPARE_TEXT(readError(root / "folder.json"),
                     (root / "folder.json").string() + ": is a folder, not a workload file.");
        const fs::path fifo = root / "fifo.json";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        COMPARE_TEXT(readError(fifo),
                     fifo.string() +
                         ": not a regular file (a fifo, socket or device), so not a workload file.");
        QVERIFY(readError("/dev/zero").find("not a regular file") != std::string::npos);
        write(root / "blocked.json", R"({"name": "w", "tasks": []})");
        QCOMPARE(::chmod((root / "blocked.json").c_str(), 0), 0);
        if (::geteuid() != 0)
            VERIFY_CONTAINS(readError(root / "blocked.json"),
                            (root / "blocked.json").string() + ": cannot be opened");
    }

    // Inside the repository a file is named relative to it, as kernel specs are.
    void filesInTheRepositoryAreNamedRelativeToIt() {
        QTemporaryDir dir(QString(TUNESCOPE_TEST_DATA "/tmp-workload-XXXXXX"));
        const fs::path file = fs::path(dir.path().toStdString()) / "w.json";
        write(file, R"({"name": "w", "tasks": []})");
        const std::string error = readError(file);
        VERIFY_CONTAINS(error, "tests/data/tmp-workload-");
        QVERIFY2(error.find(TUNESCOPE_TEST_DATA) == std::string::npos, error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestWorkloadFile)
#include "TestWorkloadFile.moc"
