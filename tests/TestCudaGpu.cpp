// The CUDA backend end to end. Without a GPU (this project's build machines) the GPU-only slots skip with the
// runtime's reason, and what must hold without one is checked: the CLI reports no device and exits 0, tune
// --backend cuda says "no CUDA device" in one sentence, CudaBackend refuses to start, the worker has a cuda
// runner that fails cleanly. On a GPU (scripts/gpu-check) every CUDA kernel is verified and a sticky error is
// shown to restart the worker.
#ifdef TUNESCOPE_WITH_CUDA

#include "CliRun.h"
#include "cuda/CudaBackend.h"
#include "cuda/CudaDevices.h"
#include "cuda/CudaStaticAnalyzer.h"
#include "cuda/NvrtcCompiler.h"
#include "hardware/GpuDatabase.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSpecReader.h"
#include "store/RecordStore.h"
#include "util/Error.h"
#include "worker/WorkerClient.h"

#include "StatusCompare.h"

#include "QuickBackendSettings.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <tuple>

using namespace ts;

namespace {

const CudaDevices& devices() {
    static const CudaDevices d = CudaDevices::query();
    return d;
}

#define REQUIRE_GPU()                                                                                        \
    do {                                                                                                     \
        if (devices().empty())                                                                               \
            QSKIP(qPrintable("needs a CUDA GPU; none here: " +                                               \
                             QString::fromStdString(devices().unavailableReason())));                        \
    } while (false)

using Result = ts::test::CliResult;

// Short timing for the GPU sessions of these tests: 3 samples of at least 2 ms after 5 ms of warm-up.
const QStringList kQuickTiming{"--repeat", "3", "--min-repeat-ms", "2", "--warmup-ms", "5"};

// Fault injection for the CUDA pipeline: one config per MODE (ok, compile_error, illegal_address, hang,
// wrong).
const QString kFaultyCuda = TUNESCOPE_TEST_DATA "/kernels/faulty_cuda/kernel.json";

Result cli(const QStringList& arguments) {
    return ts::test::runCli(arguments);
}

const KernelCatalog& catalog() {
    static const KernelCatalog c(std::vector<std::filesystem::path>{TUNESCOPE_KERNELS});
    return c;
}

CudaBackendSettings quickSettings() {
    return ts::test::quickCudaSettings();
}

// Small sizes so that verification against the CPU references stays quick.
ProblemSize smallSize(const KernelSpec& spec) {
    if (spec.name == "gemm" || spec.name == "gemm_async" || spec.name == "gemm_tc")
        return {256, 256, 256};
    if (spec.name == "softmax")
        return {256, 1024};
    if (spec.name == "conv2d")
        return {2, 16, 18, 18, 32, 3, 3};
    return spec.defaultSize();
}

// Ranks from 1, ties sharing the mean of their positions.
std::vector<double> averageRanks(const std::vector<double>& values) {
    std::vector<std::size_t> order(values.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    std::vector<double> ranks(values.size());
    for (std::size_t first = 0; first < order.size();) {
        std::size_t last = first;
        while (last + 1 < order.size() && values[order[last + 1]] == values[order[first]])
            ++last;
        for (std::size_t i = first; i <= last; ++i)
            ranks[order[i]] = (double(first) + double(last)) / 2.0 + 1.0;
        first = last + 1;
    }
    return ranks;
}

// Spearman's rho as the Pearson correlation of the average ranks, written here apart from the code under
// test.
double rankCorrelation(const std::vector<double>& a, const std::vector<double>& b) {
    const std::vector<double> ra = averageRanks(a), rb = averageRanks(b);
    const double n = double(ra.size());
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    for (std::size_t i = 0; i < ra.size(); ++i) {
        sa += ra[i];
        sb += rb[i];
        saa += ra[i] * ra[i];
        sbb += rb[i] * rb[i];
        sab += ra[i] * rb[i];
    }
    const double va = saa - sa * sa / n, vb = sbb - sb * sb / n;
    return va == 0 || vb == 0 ? 0.0 : (sab - sa * sb / n) / std::sqrt(va * vb);
}

} // namespace

class TestCudaGpu : public QObject {
    Q_OBJECT

private slots:
    // --- without a GPU as well ---

    void devicesCommandExitsZero() {
        const Result r = cli({"devices"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("CPU"), qPrintable(r.out));
        if (devices().empty())
            QVERIFY2(r.out.contains("No CUDA device ("), qPrintable(r.out));
        else
            QVERIFY2(r.out.contains("GPU 0:"), qPrintable(r.out));
        const Result json = cli({"devices", "--json"});
        QCOMPARE(json.exitCode, 0);
        QVERIFY(json.out.contains("\"gpus\""));
    }

    void tuneWithoutGpuSaysNoDevice() {
        if (!devices().empty())
            QSKIP("this machine has a GPU");
        const Result r = cli({"tune", "--kernel", "gemm", "--backend", "cuda", "--budget", "2"});
        QVERIFY(r.exitCode != 0);
        const QString err = r.err.trimmed();
        QVERIFY2(!err.contains('\n'), qPrintable(err));
        QVERIFY2(err.contains("no CUDA device"), qPrintable(err));
    }

    void backendWithoutGpuRefuses() {
        if (!devices().empty())
            QSKIP("this machine has a GPU");
        const KernelSpec& spec = catalog().find("gemm");
        const KernelSpace space(spec, "cuda", {64, 64, 64});
        try {
            CudaBackend backend(spec, space, quickSettings());
            QFAIL("CudaBackend started without a GPU");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains("no CUDA device"), e.what());
        }
    }

    void workerHasACudaRunner() {
        worker::WorkerClient client({TUNESCOPE_WORKER, std::nullopt, {}, std::chrono::milliseconds(10000)});
        const auto& backends = client.hello().backends;
        QVERIFY(std::find(backends.begin(), backends.end(), "cuda") != backends.end());
        if (!devices().empty())
            return;
        // Without a driver the runner fails the request cleanly (no crash), naming the CUDA call.
        worker::MeasureRequest r;
        r.id = 1;
        r.backend = "cuda";
        r.sizes = {4};
        r.buffers = {{"x", ElementType::Float32, 4, ArgumentFill::Random, true}};
        const worker::WorkerResult result = client.measure(r, std::chrono::milliseconds(20000));
        COMPARE_STATUS(result.status, MeasureStatus::RuntimeFailed);
        QVERIFY(result.reply.has_value());
        QVERIFY2(QString::fromStdString(result.log).contains("cudaSetDevice"), result.log.c_str());
    }

    void analyzeWorksWithoutGpu() {
        const Result r = cli({"analyze", "--kernel", "gemm", "--target", "H100", "--limit", "3"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("occupancy") && r.out.contains("would be pruned"), qPrintable(r.out + r.err));
        const Result bad = cli({"analyze", "--kernel", "gemm", "--target", "GTX 480"});
        QVERIFY(bad.exitCode != 0);
        QVERIFY2(bad.err.contains("GTX 480") && !bad.err.trimmed().contains('\n'), qPrintable(bad.err));
    }

    // scripts/gpu-check: one sentence and exit 2 for bad arguments; without a GPU, one sentence saying so,
    // the devices line and "0 passed, 1 failed", exit 2, before anything else runs.
    void gpuCheckScriptArgumentsAndNoDevice() {
        const QString script = QDir(TUNESCOPE_KERNELS "/../scripts").absoluteFilePath("gpu-check");
        const QString build = QFileInfo(TUNESCOPE_CLI).absoluteDir().absoluteFilePath("../..");
        QTemporaryDir out;
        const auto check = [&](const QStringList& arguments) {
            QProcess p;
            p.start("bash", QStringList{script} + arguments);
            p.waitForFinished(120000);
            return std::make_tuple(p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                                   QString::fromUtf8(p.readAllStandardError()));
        };
        const QList<std::pair<QStringList, QString>> bad{
            {{build, "--bogus", "1"}, "unknown option --bogus"},
            {{build, "--budget"}, "--budget needs a value."},
            {{build, "--seeds", "0"}, "--seeds \"0\" is not a positive whole number."},
            {{build, "--only", "sgemm,nope"}, "\"nope\" is not a check"},
            {{out.filePath("missing")}, "does not exist."},
            {{out.path()}, "is not a build folder (no CMakeCache.txt)."}};
        for (const auto& [arguments, sentence] : bad) {
            const auto [code, stdOut, stdErr] = check(arguments);
            QCOMPARE(code, 2);
            QVERIFY2(stdErr.contains(sentence) && stdErr.count('\n') == 1, qPrintable(stdErr));
        }
        if (!devices().empty())
            QSKIP("this machine has a GPU: scripts/gpu-check runs its checks here");
        const auto [code, stdOut, stdErr] = check({build, "--out", out.path(), "--only", "sgemm"});
        QCOMPARE(code, 2);
        QVERIFY2(stdOut.contains("No CUDA device") && stdOut.contains("Nothing was checked"),
                 qPrintable(stdOut));
        QVERIFY2(stdOut.contains(QRegularExpression("FAIL +devices +no CUDA device")), qPrintable(stdOut));
        QVERIFY2(stdOut.trimmed().endsWith("0 passed, 1 failed"), qPrintable(stdOut));
        QVERIFY(QFileInfo::exists(out.filePath("gpu-check.log")));
    }

    // --- GPU only ---

    void everyKernelVerifiesOnTheGpu_data() {
        QTest::addColumn<QString>("kernel");
        for (const KernelSpec& spec : catalog().all())
            if (spec.variant("cuda"))
                QTest::newRow(spec.name.c_str()) << QString::fromStdString(spec.name);
    }
    void everyKernelVerifiesOnTheGpu() {
        REQUIRE_GPU();
        QFETCH(QString, kernel);
        const KernelSpec& spec = catalog().find(kernel.toStdString());
        const KernelSpace space(spec, "cuda", smallSize(spec));
        CudaBackend backend(spec, space, quickSettings());
        std::vector<Config> batch;
        if (auto d = space.defaultIndex())
            batch.push_back(space.space().config(*d));
        std::mt19937_64 rng(3);
        for (auto index : space.space().sample(5, SpaceMode::Constrained, rng))
            batch.push_back(space.space().config(index));
        const std::vector<Measurement> results = backend.measure(batch);
        int ok = 0;
        for (std::size_t i = 0; i < results.size(); ++i) {
            const Measurement& m = results[i];
            // Pruned configs (cannot fit) are fine; anything measured must be correct.
            QVERIFY2(m.status == MeasureStatus::Ok ||
                         (m.status == MeasureStatus::Invalid && m.metrics.count("pruned")),
                     qPrintable(QString("%1: %2").arg(toString(m.status), m.log.c_str())));
            if (m.status == MeasureStatus::Ok) {
                ++ok;
                QCOMPARE(m.samples.size(), std::size_t(3));
                QVERIFY(m.objective > 0);
            }
        }
        QVERIFY(ok >= 1);
    }

    // Every kernel naming a GPU reference: cuBLAS timed as its baseline (SGEMM; GemmEx on fp16 for gemm_tc).
    void cublasBaseline_data() {
        QTest::addColumn<QString>("kernel");
        for (const KernelSpec& spec : catalog().all())
            if (spec.variant("cuda") && !spec.reference.gpu.empty())
                QTest::newRow(spec.name.c_str()) << QString::fromStdString(spec.name);
    }
    void cublasBaseline() {
        REQUIRE_GPU();
        QFETCH(QString, kernel);
        const KernelSpec& spec = catalog().find(kernel.toStdString());
        const KernelSpace space(spec, "cuda", {512, 512, 512});
        CudaBackend backend(spec, space, quickSettings());
        const Measurement m = backend.measureGpuReference();
        QVERIFY2(m.status == MeasureStatus::Ok, m.log.c_str());
        QVERIFY(m.metrics.at("gflops") > 0);
    }

    // Without a GPU as well: the fault-injection kernel builds with NVRTC for sm_90 in every mode but
    // compile_error, whose failure carries NVRTC's log.
    void faultyCudaKernelBuildsAsItShould() {
        const KernelSpec spec = readKernelSpec(kFaultyCuda.toStdString());
        const KernelSpace space(spec, "cuda", {4096});
        QTemporaryDir cache;
        NvrtcCompiler compiler(cache.path().toStdString());
        CudaStaticAnalyzer analyzer(spec, space, GpuDatabase::builtin().get("H200"), compiler, "sm_90");
        QCOMPARE(space.space().validCount(), SearchSpace::Index(5));
        for (SearchSpace::Index index : space.space().validIndices()) {
            const StaticProfile p = analyzer.profile(index);
            const std::string key = space.space().key(index);
            const bool broken = key.find("compile_error") != std::string::npos;
            QVERIFY2(p.compiled != broken, qPrintable(QString::fromStdString(key + ": " + p.log)));
            if (broken)
                QVERIFY2(p.log.find("does not compile, on purpose") != std::string::npos, p.log.c_str());
        }
    }

    // A hanging kernel and an illegal address in one CUDA session: Timeout and RuntimeFailed recorded, each
    // worker replaced, the session completes with the other configs measured or judged.
    void faultyCudaSessionRecordsEachStatus() {
        REQUIRE_GPU();
        QTemporaryDir dir;
        const Result r = cli(QStringList{"tune", "--kernel-spec", kFaultyCuda, "--backend", "cuda",
                                         "--strategy", "brute_force", "--budget", "5", "--timeout", "5",
                                         "--db", dir.filePath("r.db"), "--json"} +
                             kQuickTiming);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject out = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(out["evaluations"].toInt(), 5);
        const QJsonObject statuses = out["statuses"].toObject();
        for (const char* status : {"ok", "compile_failed", "runtime_failed", "timeout", "wrong_result"})
            QVERIFY2(statuses[status].toInt() == 1, qPrintable(status + QString(": ") + r.out));
    }

    // The CLI tunes a kernel on the GPU: every trial recorded against the GPU, the best config measured, the
    // static model's estimates scored.
    void tuneMeasuresOnTheGpu() {
        REQUIRE_GPU();
        QTemporaryDir dir;
        const Result r =
            cli(QStringList{"tune", "--kernel", "gemm", "--backend", "cuda", "--size", "256,256,256",
                            "--budget", "8", "--db", dir.filePath("r.db"), "--json"} +
                kQuickTiming);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject out = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(out["evaluations"].toInt(), 8);
        QVERIFY2(out["statuses"].toObject()["ok"].toInt() >= 1, qPrintable(r.out));
        QVERIFY(out["best"].toObject()["objective_ms"].toDouble() > 0.0);
        // The static model's estimates came with the measurements and are scored against them.
        const QJsonObject staticModel = out["static_model"].toObject();
        QCOMPARE(staticModel["trials"].toInt(), out["statuses"].toObject()["ok"].toInt());
        // Recomputed here from the recorded trials: each Ok trial's stored estimate against its time.
        RecordStore store(dir.filePath("r.db").toStdString());
        std::vector<double> estimated, measured, ratios;
        for (const StoredTrial& t : store.trials(store.sessions().at(0).id)) {
            auto estimate = t.metrics.find("static_ms");
            if (t.status == "ok" && t.objective > 0 && estimate != t.metrics.end() && estimate->second > 0) {
                estimated.push_back(estimate->second);
                measured.push_back(t.objective);
                ratios.push_back(t.objective / estimate->second);
            }
        }
        QCOMPARE(qsizetype(measured.size()), qsizetype(staticModel["trials"].toInt()));
        QVERIFY2(measured.size() >= 2, qPrintable(r.out));
        QVERIFY2(std::abs(staticModel["spearman"].toDouble() - rankCorrelation(estimated, measured)) < 1e-9,
                 qPrintable(r.out));
        std::sort(ratios.begin(), ratios.end());
        QVERIFY2(std::abs(staticModel["scale"].toDouble() / ratios[ratios.size() / 2] - 1.0) < 1e-9,
                 qPrintable(r.out));
        const Result records = cli({"records", "--db", dir.filePath("r.db")});
        QCOMPARE(records.exitCode, 0);
        QVERIFY2(records.out.contains(QString::fromStdString(devices().devices().front().spec.name)),
                 qPrintable(records.out));
    }

    // A GPU session killed after its first committed trial is resumed to its budget on the same GPU, without
    // measuring a config twice.
    void killedGpuSessionIsResumed() {
        REQUIRE_GPU();
        QTemporaryDir dir;
        const QString db = dir.filePath("r.db");
        QProcess first;
        first.setReadChannel(QProcess::StandardError);
        first.start(TUNESCOPE_CLI, QStringList{"tune", "--kernel", "gemm", "--backend", "cuda", "--size",
                                               "256,256,256", "--strategy", "random_sample", "--budget", "12",
                                               "--batch-size", "2", "--db", db, "--log-trials"} +
                                       kQuickTiming);
        QVERIFY(first.waitForStarted());
        QByteArray seen;
        while (!seen.contains(" committed: ") && first.state() == QProcess::Running) {
            first.waitForReadyRead(60000);
            seen += first.readAllStandardError();
        }
        QVERIFY2(first.state() == QProcess::Running, seen.constData());
        first.kill();
        QVERIFY(first.waitForFinished());
        const Result resumed = cli({"tune", "--resume", "1", "--db", db, "--json"});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        const QJsonObject out = QJsonDocument::fromJson(resumed.out.toUtf8()).object();
        QCOMPARE(out["evaluations"].toInt(), 12);
        QCOMPARE(out["backend"].toString(), QString("cuda"));
        const Result list = cli({"records", "--db", db});
        QCOMPARE(list.exitCode, 0);
        QVERIFY2(list.out.contains(QRegularExpression(R"(\n\s*1\s+completed\s.*\s12\s+12\s)")),
                 qPrintable(list.out));
    }

    // A kernel writing far outside its buffer (an illegal address; a store through nullptr may be optimised
    // away): RuntimeFailed, the worker is replaced, the next config is fine.
    void stickyErrorRestartsTheWorker() {
        REQUIRE_GPU();
        QTemporaryDir dir;
        const std::filesystem::path folder = dir.path().toStdString();
        std::ofstream(folder / "bad.cu")
            << "extern \"C\" __global__ void bad(float* x, int n) {\n"
               "#if CRASH\n  x[static_cast<long long>(threadIdx.x) - (1LL << 40)] = 1.0f;\n#endif\n"
               "  if (threadIdx.x < n) x[threadIdx.x] = 2.0f; }\n";
        std::ofstream(folder / "reference.cpp")
            << "#include <cstdint>\nextern \"C\" void tunescope_reference(void* const* b, const "
               "std::int64_t* s) {\n"
               "  for (std::int64_t i = 0; i < s[0]; ++i) static_cast<float*>(b[0])[i] = 2.0f; }\n";
        std::ofstream(folder / "kernel.json") << R"({"name": "bad", "description": "crashes when CRASH is 1",
            "problem": [{"name": "n", "default": 32}],
            "arguments": [{"name": "x", "type": "float32", "count": "n", "fill": "zero", "output": true}],
            "reference": {"source": "reference.cpp"},
            "variants": {"cuda": {"source": "bad.cu", "entry": "bad",
              "parameters": [{"name": "CRASH", "values": [0, 1], "default": 0}],
              "grid": ["1"], "block": ["32"]}}})";
        const KernelSpec spec = readKernelSpec(folder / "kernel.json");
        const KernelSpace space(spec, "cuda", {32});
        CudaBackend backend(spec, space, quickSettings());
        const std::vector<Config> batch{{std::int64_t(1)}, {std::int64_t(0)}};
        const std::vector<Measurement> results = backend.measure(batch);
        COMPARE_STATUS(results[0].status, MeasureStatus::RuntimeFailed);
        QVERIFY2(results[0].log.find("sticky") != std::string::npos, results[0].log.c_str());
        COMPARE_STATUS(results[1].status, MeasureStatus::Ok);
    }
};

#else

#include <QtTest>

class TestCudaGpu : public QObject {
    Q_OBJECT

private slots:
    void withoutCudaBackend() { QSKIP("built without the CUDA backend (TUNESCOPE_WITH_CUDA=OFF)"); }
};

#endif

QTEST_APPLESS_MAIN(TestCudaGpu)
#include "TestCudaGpu.moc"
