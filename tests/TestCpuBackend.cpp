#include "backends/CpuBackend.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpecReader.h"
#include "session/TuningSession.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"

#include "StatusCompare.h"

#include "QuickBackendSettings.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <random>

using namespace ts;

namespace {

const std::filesystem::path kFaultySpec =
    std::filesystem::path(TUNESCOPE_TEST_DATA) / "kernels/faulty/kernel.json";

// Short timing: these tests check statuses and plumbing, not speed.
CpuBackendSettings quickSettings(const QTemporaryDir& cache) {
    return ts::test::quickCpuSettings(cache.path().toStdString());
}

std::string mode(const Trial& trial) {
    return std::get<std::string>(trial.config[0]);
}

} // namespace

class TestCpuBackend : public QObject {
    Q_OBJECT

private slots:
    // A whole session over the fault-injection kernel: every failure mode becomes its status on its trial,
    // the session completes, and the good configs are measured normally.
    void faultySessionGivesEachFailureItsStatus() {
        QTemporaryDir cache;
        KernelSpec spec = readKernelSpec(kFaultySpec);
        KernelSpace space(spec, "cpu", {4096});
        CpuBackendSettings fast = quickSettings(cache);
        fast.timeoutS = 1.0; // the hanging configs wait this long each
        CpuBackend backend(spec, space, fast);
        auto strategy = StrategyRegistry::builtin().create("brute_force");
        strategy->reset({&space.space(), SpaceMode::Constrained, 0,
                         StrategyRegistry::builtin().options("brute_force", {})});
        SessionSettings settings;
        settings.batchSize = 6;
        settings.stop.maxEvaluations = 100;
        TuningSession session(space.space(), backend, *strategy, settings);
        COMPARE_STATUS(session.run(), StopReason::Exhausted);
        QCOMPARE(session.trials().size(), std::size_t{18}); // 6 modes x 3 unroll factors

        for (const Trial& t : session.trials()) {
            const Measurement& m = t.measurement;
            const std::string which = mode(t);
            if (which == "ok" || which == "print") {
                COMPARE_STATUS(m.status, MeasureStatus::Ok);
                QCOMPARE(m.samples.size(), std::size_t{3});
                QVERIFY(m.objective > 0.0);
                QVERIFY(m.metrics.at("gflops") > 0.0);
                QVERIFY(m.metrics.count("cv") == 1 && m.metrics.count("noisy") == 1);
                QCOMPARE(m.metrics.at("mismatches"), 0.0);
            } else if (which == "compile_error") {
                COMPARE_STATUS(m.status, MeasureStatus::CompileFailed);
                QVERIFY2(m.log.find("does not compile, on purpose") != std::string::npos, m.log.c_str());
            } else if (which == "segfault") {
                COMPARE_STATUS(m.status, MeasureStatus::RuntimeFailed);
                QCOMPARE(m.metrics.at("signal"), 11.0);
                QVERIFY2(m.log.find("signal 11") != std::string::npos, m.log.c_str());
            } else if (which == "hang") {
                COMPARE_STATUS(m.status, MeasureStatus::Timeout);
            } else if (which == "wrong") {
                COMPARE_STATUS(m.status, MeasureStatus::WrongResult);
                QVERIFY2(m.log.find("y[2048]") != std::string::npos, m.log.c_str());
                QVERIFY(m.samples.empty());
            }
        }
        QVERIFY(session.best() != nullptr);
        QVERIFY(mode(*session.best()) == "ok" || mode(*session.best()) == "print");
        // One start, then one restart after each of the 3 segfaults and 3 hangs.
        QCOMPARE(backend.workerStarts(), 7);
    }

    // A second backend over the same cache rebuilds nothing, failures included.
    void secondRunHitsTheBuildCache() {
        QTemporaryDir cache;
        KernelSpec spec = readKernelSpec(kFaultySpec);
        KernelSpace space(spec, "cpu", {1024});
        std::vector<Config> configs{{Value{std::string("ok")}, Value{std::int64_t{1}}},
                                    {Value{std::string("ok")}, Value{std::int64_t{4}}},
                                    {Value{std::string("compile_error")}, Value{std::int64_t{2}}}};
        {
            CpuBackend first(spec, space, quickSettings(cache));
            auto results = first.measure(configs);
            QCOMPARE(first.buildStats().misses, std::int64_t{4}); // the 3 configs and the reference
            QCOMPARE(first.buildStats().hits, std::int64_t{0});
            QCOMPARE(results[0].metrics.at("build_cache_hit"), 0.0);
            QVERIFY(results[0].compileMs > 0.0);
        }
        CpuBackend second(spec, space, quickSettings(cache));
        auto results = second.measure(configs);
        QCOMPARE(second.buildStats().misses, std::int64_t{0});
        QCOMPARE(second.buildStats().hits, std::int64_t{4});
        QVERIFY(second.buildStats().savedMs > 0.0);
        COMPARE_STATUS(results[0].status, MeasureStatus::Ok);
        QCOMPARE(results[0].metrics.at("build_cache_hit"), 1.0);
        QCOMPARE(results[0].compileMs, 0.0);
        COMPARE_STATUS(results[2].status, MeasureStatus::CompileFailed);
        QVERIFY(results[2].log.find("does not compile, on purpose") != std::string::npos);
    }

    void configOutsideTheConstraintsIsInvalid() {
        QTemporaryDir cache;
        KernelSpec spec = readKernelSpec(kFaultySpec);
        KernelSpace space(spec, "cpu", {1022}); // UNROLL=4 does not divide N
        CpuBackend backend(spec, space, quickSettings(cache));
        auto results =
            backend.measure(std::vector<Config>{{Value{std::string("ok")}, Value{std::int64_t{4}}},
                                                {Value{std::string("ok")}, Value{std::int64_t{2}}}});
        COMPARE_STATUS(results[0].status, MeasureStatus::Invalid);
        COMPARE_STATUS(results[1].status, MeasureStatus::Ok);
        QCOMPARE(backend.buildStats().misses, std::int64_t{2}); // the reference and the valid config
    }

    // Acceptance: a sample of every kernel's cpu space, at small odd sizes, passes verification.
    void everyKernelsConfigsPassVerification() {
        QTemporaryDir cache;
        KernelCatalog catalog({std::filesystem::path(TUNESCOPE_KERNELS)});
        int kernels = 0;
        for (const KernelSpec& spec : catalog.all()) {
            if (!spec.variant("cpu"))
                continue;
            ++kernels;
            ProblemSize size = spec.defaultSize();
            for (auto& value : size)
                value = std::min<std::int64_t>(value, 37);
            KernelSpace space(spec, "cpu", size);
            CpuBackendSettings settings = quickSettings(cache);
            settings.timeoutS = 20.0;
            CpuBackend backend(spec, space, settings);
            std::mt19937_64 rng(1);
            std::vector<SearchSpace::Index> picked = space.space().sample(3, SpaceMode::Constrained, rng);
            if (auto d = space.defaultIndex())
                picked.push_back(*d);
            std::vector<Config> configs;
            for (auto index : picked)
                configs.push_back(space.space().config(index));
            auto results = backend.measure(configs);
            for (std::size_t i = 0; i < results.size(); ++i) {
                const std::string what = spec.name + " " + space.space().key(picked[i]) + ": " +
                                         toString(results[i].status) + " " + results[i].log.substr(0, 600);
                QVERIFY2(results[i].status == MeasureStatus::Ok, what.c_str());
                QCOMPARE(results[i].metrics.at("mismatches"), 0.0);
            }
        }
        QVERIFY(kernels >= 1);
    }

    // The CLI tunes a kernel spec for real (finding the worker in the build tree by itself), records it, and
    // a second run is served from the build cache.
    void cliTunesAKernelSpecAndRecordsIt() {
        QTemporaryDir dir;
        const QStringList args{"tune",
                               "--kernel-spec",
                               QString::fromStdString(kFaultySpec.string()),
                               "--size",
                               "1024",
                               "--strategy",
                               "brute_force",
                               "--budget",
                               "20",
                               "--constraint",
                               "MODE != 'hang'",
                               "--timeout",
                               "5",
                               "--repeat",
                               "2",
                               "--min-repeat-ms",
                               "1",
                               "--warmup-ms",
                               "1",
                               "--no-flush",
                               "--db",
                               dir.filePath("r.db"),
                               "--cache-dir",
                               dir.filePath("cache"),
                               "--json"};
        for (int run = 0; run < 2; ++run) {
            QProcess cli;
            cli.start(TUNESCOPE_CLI, args);
            QVERIFY(cli.waitForFinished(120000));
            QCOMPARE(cli.exitCode(), 0);
            const QJsonObject out = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
            QCOMPARE(out["evaluations"].toInt(), 15); // 5 modes x 3 unroll factors
            const QJsonObject statuses = out["statuses"].toObject();
            QCOMPARE(statuses["ok"].toInt(), 6);
            QCOMPARE(statuses["compile_failed"].toInt(), 3);
            QCOMPARE(statuses["runtime_failed"].toInt(), 3);
            QCOMPARE(statuses["wrong_result"].toInt(), 3);
            QVERIFY(out["best"].toObject()["objective_ms"].toDouble() > 0.0);
            QCOMPARE(out["session"].toInt(), run + 1);
            QCOMPARE(out["build_cache"].toObject()["hit_rate"].toDouble(), run == 0 ? 0.0 : 1.0);
        }
    }

    void cliRejectsBadKernelInputInOneSentence() {
        QTemporaryDir dir;
        const QString spec = QString::fromStdString(kFaultySpec.string());
        // Each input, and the parts of the sentence that name it and say what is wrong with it.
        const std::vector<std::pair<QStringList, QStringList>> bad{
            {{"tune", "--kernel-spec", "/nonexistent/kernel.json"},
             {"/nonexistent/kernel.json", "cannot open"}},
            {{"tune", "--kernel-spec", spec, "--size", "1,2"}, {"\"1,2\"", "faulty", "takes 1 (N)"}},
            {{"tune", "--kernel-spec", spec, "--timeout", "0"}, {"The timeout 0", "not a positive number"}},
            {{"tune", "--kernel-spec", spec, "--backend", "fpga"},
             {"The backend \"fpga\"", "replay, cpu or cuda"}}};
        for (auto [args, names] : bad) {
            args << "--db" << dir.filePath("r.db") << "--cache-dir" << dir.filePath("cache");
            QProcess cli;
            cli.start(TUNESCOPE_CLI, args);
            QVERIFY(cli.waitForFinished(60000));
            QCOMPARE(cli.exitCode(), 1);
            const QString err = QString::fromUtf8(cli.readAllStandardError()).trimmed();
            QVERIFY2(err.startsWith("tunescope-cli: ") && !err.contains('\n'), qPrintable(err));
            for (const QString& name : names)
                QVERIFY2(err.contains(name), qPrintable(err + " does not say " + name));
            // Refused before anything is recorded.
            QVERIFY2(!QFile::exists(dir.filePath("r.db")), qPrintable(args.join(' ')));
        }
    }

    void missingWorkerIsOneSentence() {
        QTemporaryDir cache;
        KernelSpec spec = readKernelSpec(kFaultySpec);
        KernelSpace space(spec, "cpu", {64});
        CpuBackendSettings settings = quickSettings(cache);
        settings.worker = "/nonexistent/tunescope-worker";
        CpuBackend backend(spec, space, settings);
        try {
            backend.measure(std::vector<Config>{{Value{std::string("ok")}, Value{std::int64_t{1}}}});
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("/nonexistent/tunescope-worker") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestCpuBackend)
#include "TestCpuBackend.moc"
