// `workload from-onnx`: the tasks of the test models of tests/data/onnx (written by
// scripts/make_onnx_models.py with python3-onnx, which also counted each model's expected tasks from how it
// built them), the shipped workloads against models with their published dimensions, open dimensions, hostile
// files, and a workload from a model tuned end to end on the cpu backend.
#include "CliRun.h"
#include "util/Error.h"
#if TUNESCOPE_WITH_ONNX
#include "extract/ModelTasks.h"
#include "extract/OnnxModel.h"
#endif

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

using namespace ts;
using test::runCli;

namespace {

const QString kModels = QStringLiteral(TUNESCOPE_TEST_DATA "/onnx/");

nlohmann::json readJson(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// (kernel, size as "A=1,B=2") -> weight, of a list of tasks in the workload file's form.
std::map<std::pair<std::string, std::string>, std::int64_t> byShape(const nlohmann::json& tasks) {
    std::map<std::pair<std::string, std::string>, std::int64_t> out;
    for (const auto& task : tasks) {
        std::string size;
        for (const auto& [dim, value] : task.at("size").items())
            size += (size.empty() ? "" : ",") + dim + "=" + std::to_string(value.get<std::int64_t>());
        out[{task.at("kernel").get<std::string>(), size}] += task.at("weight").get<std::int64_t>();
    }
    return out;
}

// The model an expected-tasks file is for: its "model" key, else the file of the same stem.
QString modelOf(const QString& stem, const nlohmann::json& expected) {
    return kModels + (expected.contains("model")
                          ? QString::fromStdString(expected.at("model").get<std::string>())
                          : stem + ".onnx");
}

QStringList argsOf(const nlohmann::json& expected) {
    QStringList args;
    for (const auto& a : expected.at("args"))
        args << QString::fromStdString(a.get<std::string>());
    return args;
}

// Runs `workload from-onnx` on the model of an expected-tasks file with its arguments; the workload written.
bool extract(const QString& stem, const nlohmann::json& expected, nlohmann::json& workload) {
    QTemporaryDir dir;
    const QString out = dir.path() + "/w.json";
    const auto run =
        runCli(QStringList{"workload", "from-onnx", modelOf(stem, expected), "-o", out} + argsOf(expected));
    if (run.exitCode != 0) {
        qWarning("%s", qPrintable(run.err));
        return false;
    }
    workload = readJson(out.toStdString());
    return true;
}

} // namespace

class TestOnnxWorkload : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
#if !TUNESCOPE_WITH_ONNX
        QSKIP(
            "This build reads no ONNX models (libonnx-dev was not found): workload from-onnx is not built.");
#endif
    }

    void tasksAsTheModelWasBuilt_data() {
        QTest::addColumn<QString>("model");
        for (const char* model : {"bert_layer", "resnet_block", "dynamic_axes", "external_data", "bert_base",
                                  "resnet50", "llama3_8b_decode", "llama3_8b_decode_batch16"})
            QTest::newRow(model) << QString(model);
    }
    // The workload the command writes holds the expected tasks in the model's order, and its source names
    // every operator left out with its count.
    void tasksAsTheModelWasBuilt() {
        QFETCH(QString, model);
        const nlohmann::json expected = readJson((kModels + model + ".expected.json").toStdString());
        nlohmann::json workload;
        QVERIFY(extract(model, expected, workload));
        QCOMPARE(workload.at("tasks").size(), expected.at("tasks").size());
        for (std::size_t i = 0; i < expected.at("tasks").size(); ++i) {
            const auto& got = workload.at("tasks")[i];
            const auto& want = expected.at("tasks")[i];
            QCOMPARE(got.at("kernel"), want.at("kernel"));
            QCOMPARE(got.at("size"), want.at("size"));
            QCOMPARE(got.at("weight"), want.at("weight"));
        }
        const QString source = QString::fromStdString(workload.at("source").get<std::string>());
        const nlohmann::json leftOut = expected.value("left_out", nlohmann::json::object());
        for (const auto& [op, count] : leftOut.items()) {
            // Each op type's counts over its reasons add up to the model's.
            std::int64_t seen = 0;
            const QRegularExpression entry(
                QStringLiteral("(?:: |; )%1 x(\\d+) \\(").arg(QString::fromStdString(op)));
            for (auto it = entry.globalMatch(source); it.hasNext();)
                seen += it.next().captured(1).toLongLong();
            QVERIFY2(seen == count.get<std::int64_t>(),
                     qPrintable(QString("%1: %2 left out, expected %3 (%4)")
                                    .arg(QString::fromStdString(op))
                                    .arg(seen)
                                    .arg(count.get<std::int64_t>())
                                    .arg(source)));
        }
    }

    // The shipped workloads are what the models of their published dimensions give (for Llama, less the
    // attention over the KV cache, whose size varies with the cache: the file leaves it out and says so).
    void shippedWorkloadsAgreeWithTheirModels_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("bert-base") << "bert_base";
        QTest::newRow("resnet-50") << "resnet50";
        QTest::newRow("llama-3-8b batch 1") << "llama3_8b_decode";
        QTest::newRow("llama-3-8b batch 16") << "llama3_8b_decode_batch16";
    }
    void shippedWorkloadsAgreeWithTheirModels() {
        QFETCH(QString, model);
        const nlohmann::json expected = readJson((kModels + model + ".expected.json").toStdString());
        nlohmann::json written;
        QVERIFY(extract(model, expected, written));
        const nlohmann::json shipped =
            readJson(std::string(TUNESCOPE_SOURCE_DIR "/") + expected.at("shipped").get<std::string>());
        const std::string prefix = expected.value("shipped_prefix", "");
        nlohmann::json shippedTasks = nlohmann::json::array();
        for (const auto& task : shipped.at("tasks"))
            if (task.at("name").get<std::string>().rfind(prefix, 0) == 0)
                shippedTasks.push_back(task);
        nlohmann::json extracted = nlohmann::json::array();
        const nlohmann::json leftOut = expected.value("shipped_leaves_out", nlohmann::json::array());
        for (const auto& task : written.at("tasks"))
            if (std::find(leftOut.begin(), leftOut.end(), task.at("size")) == leftOut.end())
                extracted.push_back(task);
        QVERIFY(!shippedTasks.empty());
        QVERIFY2(byShape(extracted) == byShape(shippedTasks), extracted.dump().c_str());
    }

#if TUNESCOPE_WITH_ONNX
    void openDimensionsAreNamed() {
        const std::string path = (kModels + "dynamic_axes.onnx").toStdString();
        try {
            ModelTasks tasks(OnnxModel::read(path));
            QFAIL("a model with open dimensions gave tasks");
        } catch (const Error& e) {
            const QString text(e.what());
            QVERIFY2(text.contains("batch, sequence") && text.contains("--dim NAME=VALUE"), e.what());
        }
        OnnxModel::Bindings onlyBatch;
        onlyBatch.batch = 3;
        try {
            ModelTasks tasks(OnnxModel::read(path, onlyBatch));
            QFAIL("a model with an open sequence gave tasks");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains("sequence") && !QString(e.what()).contains("batch,"),
                     e.what());
        }
        OnnxModel::Bindings typo;
        typo.dims["sequnce"] = 4;
        QVERIFY_THROWS_EXCEPTION(Error, OnnxModel::read(path, typo));
        OnnxModel::Bindings zero;
        zero.dims["sequence"] = 0;
        QVERIFY_THROWS_EXCEPTION(Error, OnnxModel::read(path, zero));
    }
#endif

    // A file that is not a whole ONNX model gets one sentence naming it and exit status 1.
    void hostileFilesAreRefusedInOneSentence_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("says");
        QTest::newRow("truncated") << kModels + "truncated.onnx"
                                   << "is not an ONNX model";
        QTest::newRow("gzip") << QString(TUNESCOPE_TEST_DATA "/corrupt.json.gz") << "is not an ONNX model";
        QTest::newRow("json") << QString(TUNESCOPE_TEST_DATA "/empty.json") << "is not an ONNX model";
        QTest::newRow("missing") << kModels + "no_such_model.onnx"
                                 << "does not exist";
        QTest::newRow("folder") << kModels << "is not a file";
    }
    void hostileFilesAreRefusedInOneSentence() {
        QFETCH(QString, file);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const QString out = dir.path() + "/w.json";
        const auto run = runCli({"workload", "from-onnx", file, "-o", out});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(says), qPrintable(run.err));
        QCOMPARE(run.err.trimmed().count('\n'), 0);
        QVERIFY(!QFile::exists(out));
    }

    void badOptionsAreRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("says");
        QTest::newRow("kernel") << QStringList{"--kernels", "gemm,fft"} << "\"fft\" is not a kernel";
        QTest::newRow("dim syntax") << QStringList{"--dim", "sequence"} << "is not NAME=VALUE";
        QTest::newRow("dim twice") << QStringList{"--dim", "sequence=2", "--dim", "sequence=3"}
                                   << "given twice";
        QTest::newRow("batch") << QStringList{"--batch", "-1"} << "--batch -1";
        QTest::newRow("device") << QStringList{"--device", "tpu"} << "is not cpu or cuda";
    }
    void badOptionsAreRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const auto run = runCli(QStringList{"workload", "from-onnx", kModels + "dynamic_axes.onnx", "-o",
                                            dir.path() + "/w.json"} +
                                args);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(says), qPrintable(run.err));
    }

    // The workload of a model runs: from-onnx, then workload tune on the cpu backend.
    void aModelsWorkloadTunesOnTheCpu() {
        QTemporaryDir dir;
        const QString workload = dir.path() + "/w.json";
        auto run = runCli({"workload", "from-onnx", kModels + "dynamic_axes.onnx", "-o", workload, "--batch",
                           "2", "--dim", "sequence=8", "--device", "cpu"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        run = runCli({"workload", "tune", workload, "--budget", "4", "--strategy", "random_sample", "--db",
                      dir.path() + "/records.db", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const nlohmann::json result = nlohmann::json::parse(run.out.toStdString());
        QVERIFY2(result.dump().find("gemm.M16_N48_K32") != std::string::npos, qPrintable(run.out));
        QVERIFY2(result.dump().find("softmax.rows16_cols48") != std::string::npos, qPrintable(run.out));
    }
};

QTEST_GUILESS_MAIN(TestOnnxWorkload)
#include "TestOnnxWorkload.moc"
