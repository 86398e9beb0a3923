#include "hardware/GpuDatabase.h"
#include "hardware/HardwareFeatures.h"
#include "hardware/OccupancyCalculator.h"
#include "hardware/OccupancyCurves.h"
#include "hardware/StaticCostModel.h"
#include "hardware/StaticEstimateFit.h"
#include "util/Error.h"

#include <QtTest>

#include <algorithm>

using namespace ts;

namespace {

const GpuDatabase& database() {
    return GpuDatabase::builtin();
}

// Compute capability 12.0 is not in the database (no consumer Blackwell there yet): its limits from the
// platform notes' table, to cover the newest generation the header knows.
GpuSpec cc120() {
    GpuSpec gpu = database().get("RTX_4090");
    gpu.id = "CC_12_0";
    gpu.computeMajor = 12;
    gpu.computeMinor = 0;
    gpu.maxThreadsPerSm = 1536;
    gpu.maxBlocksPerSm = 24;
    gpu.sharedPerSm = 100 * 1024;
    gpu.sharedPerBlockOptin = 99 * 1024;
    gpu.reservedSharedPerBlock = 1024;
    return gpu;
}

GpuSpec gpuFor(const QString& cc) {
    if (cc == "7.0")
        return database().get("V100");
    if (cc == "7.5")
        return database().get("T4");
    if (cc == "8.0")
        return database().get("A100");
    if (cc == "8.6")
        return database().get("RTX_3090");
    if (cc == "8.9")
        return database().get("L4");
    if (cc == "9.0")
        return database().get("H100");
    return cc120();
}

KernelResources kernel(int registers, std::int64_t staticShared = 0) {
    KernelResources k;
    k.registersPerThread = registers;
    k.staticSharedBytes = staticShared;
    return k;
}

std::int64_t roundUp(std::int64_t x, std::int64_t step) {
    return (x + step - 1) / step * step;
}

// The steps of the platform notes, written out independently of cuda_occupancy.h: blocks per SM.
int expectedBlocks(const GpuSpec& gpu, int threads, int registers, std::int64_t staticShared,
                   std::int64_t dynamicShared) {
    const int warps = (threads + 31) / 32;
    if (threads > gpu.maxThreadsPerBlock)
        return 0;
    const int byWarps = gpu.maxWarpsPerSm() / warps;
    const int regsPerWarp = static_cast<int>(roundUp(registers * 32, 256));
    int byRegisters = 1 << 30;
    if (regsPerWarp * roundUp(warps, 4) > gpu.registersPerBlock || registers > 255)
        byRegisters = 0;
    else if (regsPerWarp > 0)
        byRegisters = (gpu.registersPerSm / 4 / regsPerWarp) * 4 / warps;
    const std::int64_t granularity = gpu.computeMajor >= 8 ? 128 : 256;
    const std::int64_t smem = roundUp(staticShared + dynamicShared + gpu.reservedSharedPerBlock, granularity);
    int byShared = 1 << 30;
    if (smem > gpu.sharedPerBlockOptin + gpu.reservedSharedPerBlock)
        byShared = 0;
    else if (smem > 0)
        byShared = static_cast<int>(gpu.sharedPerSm / smem);
    return std::min({byWarps, byRegisters, byShared, gpu.maxBlocksPerSm});
}

} // namespace

class TestOccupancy : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!OccupancyCalculator::available())
            QSKIP("Built without the CUDA toolkit's cuda_occupancy.h: occupancy is not available.");
    }

    // Cases computed with cuda_occupancy.h (shared/platform-notes.md).
    void headerCases_data() {
        QTest::addColumn<QString>("cc");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("registers");
        QTest::addColumn<int>("dynamicShared");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<double>("occupancy");
        QTest::addColumn<QString>("limit");
        QTest::newRow("7.0 96x40") << "7.0" << 96 << 40 << 0 << 16 << 0.75 << "registers";
        QTest::newRow("7.5 96x40") << "7.5" << 96 << 40 << 0 << 10 << 30.0 / 32 << "warps";
        QTest::newRow("8.0 256x32 48K") << "8.0" << 256 << 32 << 48 * 1024 << 3 << 0.375 << "shared memory";
        QTest::newRow("8.6 256x64") << "8.6" << 256 << 64 << 0 << 4 << 32.0 / 48 << "registers";
        QTest::newRow("8.6 128x64 100K") << "8.6" << 128 << 64 << 100 * 1024 << 0 << 0.0 << "shared memory";
        QTest::newRow("9.0 128x64 100K") << "9.0" << 128 << 64 << 100 * 1024 << 2 << 0.125 << "shared memory";
        QTest::newRow("9.0 512x72 32K") << "9.0" << 512 << 72 << 32 * 1024 << 1 << 0.25 << "registers";
        QTest::newRow("12.0 256x32 16K")
            << "12.0" << 256 << 32 << 16 * 1024 << 5 << 40.0 / 48 << "shared memory";
        // Database limits at the edges: too many threads, too many registers per block, block count cap.
        QTest::newRow("9.0 1056 threads") << "9.0" << 1056 << 16 << 0 << 0 << 0.0 << "warps";
        QTest::newRow("8.0 1024x72") << "8.0" << 1024 << 72 << 0 << 0 << 0.0 << "registers";
        QTest::newRow("8.9 32x16") << "8.9" << 32 << 16 << 0 << 24 << 0.5 << "blocks";
        QTest::newRow("7.5 32x16") << "7.5" << 32 << 16 << 0 << 16 << 0.5 << "blocks";
    }
    void headerCases() {
        QFETCH(QString, cc);
        QFETCH(int, threads);
        QFETCH(int, registers);
        QFETCH(int, dynamicShared);
        QFETCH(int, blocks);
        QFETCH(double, occupancy);
        QFETCH(QString, limit);
        const GpuSpec gpu = gpuFor(cc);
        QCOMPARE(gpu.computeCapability(), cc.toStdString());
        const Occupancy o = OccupancyCalculator(gpu).compute(kernel(registers), threads, dynamicShared);
        QCOMPARE(o.activeBlocksPerSm, blocks);
        QVERIFY2(std::abs(o.occupancy - occupancy) < 1e-9, qPrintable(QString::number(o.occupancy)));
        QCOMPARE(QString::fromStdString(o.limitText()).split(", ").contains(limit), true);
        QCOMPARE(o.fits(), blocks > 0);
        QCOMPARE(o.reason.empty(), blocks > 0);
        QCOMPARE(o.activeWarpsPerSm, blocks * ((threads + 31) / 32));
    }

    void reasonNamesTheResource() {
        const Occupancy o =
            OccupancyCalculator(database().get("RTX 3090")).compute(kernel(64), 128, 100 * 1024);
        QVERIFY2(o.reason.find("shared memory") != std::string::npos, o.reason.c_str());
        QVERIFY2(o.reason.find("102400 dynamic") != std::string::npos, o.reason.c_str());
        const Occupancy t = OccupancyCalculator(database().get("H100")).compute(kernel(16), 2048, 0);
        QVERIFY2(t.reason.find("2048 threads") != std::string::npos, t.reason.c_str());
    }

    // Every database GPU over a grid of launch shapes against the independent formula above.
    void sweepMatchesDocumentedSteps() {
        int checked = 0;
        for (const GpuSpec& gpu : database().gpus()) {
            const OccupancyCalculator calculator(gpu);
            for (int threads : {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024})
                for (int registers : {16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 255})
                    for (std::int64_t staticShared : {0, 4096, 12288})
                        for (std::int64_t dyn : {0, 1000, 8192, 20000, 40960, 65536, 98304, 131072, 200000}) {
                            const Occupancy o =
                                calculator.compute(kernel(registers, staticShared), threads, dyn);
                            const int expected = expectedBlocks(gpu, threads, registers, staticShared, dyn);
                            if (o.activeBlocksPerSm != expected)
                                QFAIL(qPrintable(QString("%1: %2 threads, %3 regs, %4+%5 smem: %6 blocks, "
                                                         "expected %7")
                                                     .arg(gpu.id.c_str())
                                                     .arg(threads)
                                                     .arg(registers)
                                                     .arg(staticShared)
                                                     .arg(dyn)
                                                     .arg(o.activeBlocksPerSm)
                                                     .arg(expected)));
                            ++checked;
                        }
        }
        QVERIFY(checked > 10000);
    }

    void badInputIsAnError() {
        const OccupancyCalculator calculator(database().get("A100"));
        QVERIFY_THROWS_EXCEPTION(Error, calculator.compute(kernel(32), 0, 0));
        QVERIFY_THROWS_EXCEPTION(Error, calculator.compute(kernel(32), 128, -1));
        GpuSpec unknown = database().get("A100");
        unknown.computeMajor = 2;
        QVERIFY_THROWS_EXCEPTION(Error, OccupancyCalculator(unknown).compute(kernel(32), 128, 0));
    }

    void curves() {
        const GpuSpec& gpu = database().get("H100");
        const OccupancyCalculator calculator(gpu);
        const KernelResources k = kernel(72, 4096);
        const OccupancyCurves curves = OccupancyCurves::compute(calculator, k, 200, 16 * 1024);
        QCOMPARE(curves.current.activeBlocksPerSm, calculator.compute(k, 200, 16 * 1024).activeBlocksPerSm);

        // Threads: every warp multiple plus the config's own (200), ascending, marked point on the curve.
        QCOMPARE(curves.threads.points.size(), std::size_t(32 + 1));
        QCOMPARE(curves.threads.marked.x, 200.0);
        QCOMPARE(curves.threads.marked.occupancy, curves.current.occupancy);
        auto onCurve = [](const OccupancyCurve& c) {
            return std::any_of(c.points.begin(), c.points.end(), [&](const OccupancyPoint& p) {
                return p.x == c.marked.x && p.occupancy == c.marked.occupancy;
            });
        };
        auto ascending = [](const OccupancyCurve& c) {
            return std::is_sorted(c.points.begin(), c.points.end(),
                                  [](const auto& a, const auto& b) { return a.x < b.x; });
        };
        for (const OccupancyCurve* c : {&curves.threads, &curves.registers, &curves.sharedMemory}) {
            QVERIFY(onCurve(*c));
            QVERIFY(ascending(*c));
            QVERIFY(!c->xLabel.empty() && !c->xUnit.empty());
        }
        // More registers or more shared memory never raise occupancy.
        for (const OccupancyCurve* c : {&curves.registers, &curves.sharedMemory})
            for (std::size_t i = 1; i < c->points.size(); ++i)
                QVERIFY(c->points[i].occupancy <= c->points[i - 1].occupancy);
        QCOMPARE(curves.registers.points.front().x, 1.0);
        QCOMPARE(curves.registers.points.back().x, 255.0);
        QCOMPARE(curves.sharedMemory.points.front().x, 4096.0);
        QVERIFY(curves.sharedMemory.points.back().x >= double(gpu.sharedPerBlockOptin));
        // At the opt-in limit one block still fits (reserved memory is on top); one step past it nothing
        // does.
        QCOMPARE(curves.sharedMemory.points.back().occupancy, 0.0);
        const auto atLimit =
            std::find_if(curves.sharedMemory.points.begin(), curves.sharedMemory.points.end(),
                         [&](const OccupancyPoint& p) { return p.x == double(gpu.sharedPerBlockOptin); });
        QVERIFY(atLimit != curves.sharedMemory.points.end());
        QCOMPARE(atLimit->activeBlocksPerSm, 1);
        QCOMPARE(curves.registers.points.front().activeBlocksPerSm,
                 calculator.compute(kernel(1, 4096), 200, 16 * 1024).activeBlocksPerSm);
    }

    // Hardware features and the static cost model on hand-made profiles (the NVRTC-made ones: TestNvrtc).
    // The cuda backend stores the static estimate with each config; a session's fit ranks the Ok trials only.
    void staticEstimatesAreScoredAgainstTheMeasuredTimes() {
        auto trial = [](MeasureStatus status, double measured, std::optional<double> estimate) {
            Trial t;
            t.measurement.status = status;
            t.measurement.objective = measured;
            if (estimate)
                t.measurement.metrics[kStaticEstimateMetric] = *estimate;
            return t;
        };
        std::vector<Trial> trials{trial(MeasureStatus::Ok, 4.0, 1.0), trial(MeasureStatus::Ok, 6.0, 2.0),
                                  trial(MeasureStatus::Ok, 9.0, 3.0),
                                  trial(MeasureStatus::Ok, 5.0, std::nullopt), // pruned or cpu: no estimate
                                  trial(MeasureStatus::RuntimeFailed, 0.0, 0.5)};
        StaticEstimateFit fit = fitStaticEstimates(trials);
        QCOMPARE(fit.trials, std::size_t{3});
        QCOMPARE(fit.spearman, 1.0);
        QCOMPARE(fit.scale, 3.0);                                                    // median of 4, 3, 3
        std::swap(trials[0].measurement.objective, trials[2].measurement.objective); // ranked backwards
        fit = fitStaticEstimates(trials);
        QCOMPARE(fit.spearman, -1.0);
        QCOMPARE(fitStaticEstimates(std::span<const Trial>(trials.data() + 3, 2)).trials, std::size_t{0});
    }

    void featuresAndStaticModel() {
        const GpuSpec& gpu = database().get("A100");
        const OccupancyCalculator calculator(gpu);
        auto profile = [&](int registers, int threads, std::int64_t blocks, std::int64_t spill) {
            StaticProfile p;
            p.compiled = true;
            p.resources = kernel(registers, 8192);
            p.resources.spillStoreBytes = spill;
            p.launch.block = {threads, 1, 1};
            p.launch.grid = {blocks, 1, 1};
            p.occupancy = calculator.compute(p.resources, threads, 0);
            return p;
        };
        const std::vector<StaticProfile> profiles{
            profile(32, 256, 3456, 0),   // full occupancy, exactly 4 waves of 108 SMs x 8 blocks
            profile(128, 256, 4096, 0),  // register-limited: 25 %
            profile(32, 256, 54, 0),     // half the SMs idle
            profile(32, 256, 4096, 512), // spills
            profile(32, 2048, 4096, 0),  // does not fit
        };
        QCOMPARE(HardwareFeatures::width(), HardwareFeatures::names().size());
        const std::vector<float> rows = HardwareFeatures(gpu).encode(profiles);
        QCOMPARE(rows.size(), profiles.size() * HardwareFeatures::width());
        auto at = [&](std::size_t row, const char* name) {
            const auto& names = HardwareFeatures::names();
            return rows[row * names.size() + (std::find(names.begin(), names.end(), name) - names.begin())];
        };
        QCOMPARE(at(0, "occupancy"), 1.0f);
        QCOMPARE(at(1, "occupancy"), 0.25f);
        QCOMPARE(at(1, "limit_registers"), 1.0f);
        QCOMPARE(at(2, "sm_fill"), 0.5f);
        QVERIFY(at(3, "spill_log2") > 8.0f);
        QCOMPARE(at(4, "fits"), 0.0f);
        QCOMPARE(at(0, "fits"), 1.0f);
        for (float v : rows)
            QVERIFY(std::isfinite(v));

        const double flops = 2.0 * 4096.0 * 4096 * 4096;
        StaticCostModel model(gpu, flops, 4.0 * 3 * 4096 * 4096, gpu.fp32TFlops * 1e12,
                              [&](std::span<const SearchSpace::Index> indices) {
                                  std::vector<StaticProfile> out;
                                  for (auto i : indices)
                                      out.push_back(profiles[i]);
                                  return out;
                              });
        QVERIFY(model.isTrained());
        const std::vector<SearchSpace::Index> all{0, 1, 2, 3, 4};
        const std::vector<double> ms = model.predict(all);
        QVERIFY(std::abs(model.rooflineMs() - flops / (gpu.fp32TFlops * 1e12) * 1e3) < 1e-9);
        QCOMPARE(ms[0], model.rooflineMs()); // full efficiency: the roofline itself
        QVERIFY(ms[1] > ms[0] && ms[2] > ms[0] && ms[3] > ms[0]);
        QCOMPARE(ms[4], StaticCostModel::kUnfitMs);
        // Calibration keeps the order and scales to the measured times.
        Trial t;
        t.index = 0;
        t.measurement.status = MeasureStatus::Ok;
        t.measurement.objective = 3.0 * ms[0];
        model.update(std::span<const Trial>(&t, 1));
        QCOMPARE(model.scale(), 3.0);
        QCOMPARE(model.predict(all)[1], 3.0 * ms[1]);
        StaticCostModel copy(gpu, flops, std::nullopt, 1e12, {});
        copy.load(model.save());
        QCOMPARE(copy.scale(), 3.0);
        QVERIFY_THROWS_EXCEPTION(Error, copy.load({'x'}));
    }
};

QTEST_APPLESS_MAIN(TestOccupancy)
#include "TestOccupancy.moc"
