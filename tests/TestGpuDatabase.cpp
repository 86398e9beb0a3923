#include "hardware/GpuDatabase.h"
#include "util/Error.h"

#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>

using namespace ts;

namespace {

const GpuDatabase& database() {
    return GpuDatabase::builtin();
}

nlohmann::json builtinJson() {
    std::ifstream in(std::filesystem::path(TUNESCOPE_RESOURCES) / "hardware" / "gpus.json");
    return nlohmann::json::parse(in);
}

// Writes `doc` to a file in `dir` and returns the message GpuDatabase::read throws for it (empty if none).
QString readError(const QTemporaryDir& dir, const std::string& text) {
    const std::string path = (std::filesystem::path(dir.path().toStdString()) / "gpus.json").string();
    std::ofstream(path) << text;
    try {
        GpuDatabase::read(path);
    } catch (const Error& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestGpuDatabase : public QObject {
    Q_OBJECT

private slots:
    void requiredGpus() {
        for (const char* name : {"V100", "T4", "RTX 2080 Ti", "A100 40GB", "A100 80GB", "A10", "RTX 3090",
                                 "RTX A4000", "RTX A6000", "RTX 4090", "L4", "L40S", "H100 SXM", "H200"})
            QVERIFY2(database().find(name) != nullptr, name);
        QCOMPARE(database().gpus().size(), std::size_t(14));
        // The device names of the replayed datasets' GPUs (Kernel Tuner cache files).
        QCOMPARE(database().match("NVIDIA RTX A4000")->id, std::string("RTX_A4000"));
        QCOMPARE(database().match("NVIDIA RTX A6000")->id, std::string("RTX_A6000"));
        QCOMPARE(database().match("NVIDIA GeForce RTX 2080 Ti")->id, std::string("RTX_2080_Ti"));
        QCOMPARE(database().find("A10")->id, std::string("A10"));
        QCOMPARE(database().find("a100")->id, std::string("A100_40GB"));
        QCOMPARE(database().find("h100-sxm")->id, std::string("H100_SXM"));
        QCOMPARE(database().find("NVIDIA GeForce RTX 3090")->id, std::string("RTX_3090"));
        QVERIFY(database().find("RTX 2080") == nullptr);
        try {
            database().get("GTX 480");
            QFAIL("no error for an unknown GPU");
        } catch (const Error& e) {
            QVERIFY(QString(e.what()).contains("GTX 480"));
            QVERIFY(QString(e.what()).contains("H100_SXM"));
        }
    }

    // Per compute capability limits as in the platform notes' table (CUDA Programming Guide values).
    void limitsPerComputeCapability_data() {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("cc");
        QTest::addColumn<int>("threadsPerSm");
        QTest::addColumn<int>("blocksPerSm");
        QTest::addColumn<int>("sharedPerSmKb");
        QTest::addColumn<int>("optinKb");
        QTest::addColumn<int>("reserved");
        QTest::newRow("V100") << "V100"
                              << "7.0" << 2048 << 32 << 96 << 96 << 0;
        QTest::newRow("T4") << "T4"
                            << "7.5" << 1024 << 16 << 64 << 64 << 0;
        QTest::newRow("A100 40") << "A100_40GB"
                                 << "8.0" << 2048 << 32 << 164 << 163 << 1024;
        QTest::newRow("A100 80") << "A100_80GB"
                                 << "8.0" << 2048 << 32 << 164 << 163 << 1024;
        QTest::newRow("A10") << "A10"
                             << "8.6" << 1536 << 16 << 100 << 99 << 1024;
        QTest::newRow("RTX 2080 Ti") << "RTX_2080_Ti"
                                     << "7.5" << 1024 << 16 << 64 << 64 << 0;
        QTest::newRow("RTX 3090") << "RTX_3090"
                                  << "8.6" << 1536 << 16 << 100 << 99 << 1024;
        QTest::newRow("RTX A4000") << "RTX_A4000"
                                   << "8.6" << 1536 << 16 << 100 << 99 << 1024;
        QTest::newRow("RTX A6000") << "RTX_A6000"
                                   << "8.6" << 1536 << 16 << 100 << 99 << 1024;
        QTest::newRow("RTX 4090") << "RTX_4090"
                                  << "8.9" << 1536 << 24 << 100 << 99 << 1024;
        QTest::newRow("L4") << "L4"
                            << "8.9" << 1536 << 24 << 100 << 99 << 1024;
        QTest::newRow("L40S") << "L40S"
                              << "8.9" << 1536 << 24 << 100 << 99 << 1024;
        QTest::newRow("H100") << "H100_SXM"
                              << "9.0" << 2048 << 32 << 228 << 227 << 1024;
        QTest::newRow("H200") << "H200"
                              << "9.0" << 2048 << 32 << 228 << 227 << 1024;
    }
    void limitsPerComputeCapability() {
        QFETCH(QString, gpu);
        QFETCH(QString, cc);
        QFETCH(int, threadsPerSm);
        QFETCH(int, blocksPerSm);
        QFETCH(int, sharedPerSmKb);
        QFETCH(int, optinKb);
        QFETCH(int, reserved);
        const GpuSpec& g = database().get(gpu.toStdString());
        QCOMPARE(QString::fromStdString(g.computeCapability()), cc);
        QCOMPARE(g.maxThreadsPerSm, threadsPerSm);
        QCOMPARE(g.maxBlocksPerSm, blocksPerSm);
        QCOMPARE(g.sharedPerSm, std::int64_t(sharedPerSmKb) * 1024);
        QCOMPARE(g.sharedPerBlockOptin, std::int64_t(optinKb) * 1024);
        QCOMPARE(g.sharedPerBlock, std::int64_t(48 * 1024));
        QCOMPARE(g.reservedSharedPerBlock, std::int64_t(reserved));
        QCOMPARE(g.registersPerSm, 65536);
        QCOMPARE(g.registersPerBlock, 65536);
        QCOMPARE(g.maxRegistersPerThread, 255);
        QCOMPARE(g.warpSize, 32);
        QCOMPARE(g.maxThreadsPerBlock, 1024);
        QCOMPARE(g.architecture(), "sm_" + cc.remove('.').toStdString());
    }

    // The FP32 peak is SMs x FP32 lanes per SM x 2 (FMA) x boost clock; a datasheet typo would break it.
    void fp32PeakAgreesWithClock() {
        for (const GpuSpec& g : database().gpus()) {
            const int lanes =
                (g.computeMajor == 7 || (g.computeMajor == 8 && g.computeMinor == 0)) ? 64 : 128;
            const double derived = g.smCount * lanes * 2.0 * g.boostClockMHz * 1e6 / 1e12;
            QVERIFY2(std::abs(derived - g.fp32TFlops) / g.fp32TFlops < 0.02,
                     qPrintable(QString("%1: %2 vs %3").arg(g.id.c_str()).arg(derived).arg(g.fp32TFlops)));
            QVERIFY(g.baseClockMHz < g.boostClockMHz);
            QVERIFY(g.memoryBandwidthGBs > 250 && g.memoryBandwidthGBs < 6000);
            QVERIFY(g.fp16TensorTFlops > g.fp32TFlops);
            QVERIFY(g.l2Bytes >= 4 << 20);
            QVERIFY(!g.source.empty());
        }
        QCOMPARE(database().get("V100").bf16TensorTFlops, 0.0);
        QCOMPARE(database().get("H100").fp16TensorTFlops, 989.0);
        QCOMPARE(database().get("H200").memoryBandwidthGBs, 4800.0);
        QCOMPARE(database().get("A100_80GB").memoryBandwidthGBs, 2039.0);
    }

    void fileNotesItsSources() {
        const nlohmann::json doc = builtinJson();
        QVERIFY(doc.at("sources").is_array());
        QVERIFY(doc.at("sources").dump().find("datasheet") != std::string::npos);
    }

    void badFilesAreOneSentence() {
        QTemporaryDir dir;
        QVERIFY(readError(dir, "{ not json").contains("not valid JSON"));
        QVERIFY(readError(dir, "{}").contains("no \"gpus\" array"));

        nlohmann::json doc = builtinJson();
        doc["gpus"][0].erase("sm_count");
        QString message = readError(dir, doc.dump());
        QVERIFY2(message.contains("V100_SXM2") && message.contains("sm_count"), qPrintable(message));

        doc = builtinJson();
        doc["gpus"][1]["max_threads_per_sm"] = -5;
        message = readError(dir, doc.dump());
        QVERIFY2(message.contains("T4") && message.contains("max_threads_per_sm"), qPrintable(message));

        doc = builtinJson();
        doc["gpus"][2]["compute_capability"] = "eight";
        QVERIFY(readError(dir, doc.dump()).contains("compute_capability"));

        doc = builtinJson();
        doc["gpus"][3]["aliases"].push_back("H100");
        message = readError(dir, doc.dump());
        QVERIFY2(message.contains("h100") && message.contains("twice"), qPrintable(message));

        QVERIFY(readError(dir, builtinJson().dump()).isEmpty());
        try {
            GpuDatabase::read("/nonexistent/gpus.json");
            QFAIL("no error for a missing file");
        } catch (const Error& e) {
            QVERIFY(QString(e.what()).contains("/nonexistent/gpus.json"));
        }
    }
};

QTEST_APPLESS_MAIN(TestGpuDatabase)
#include "TestGpuDatabase.moc"
