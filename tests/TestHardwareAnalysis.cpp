// Core analyses of the Hardware view without a GPU: the CPU's peaks (from a given /proc/cpuinfo text), the
// measured memory bandwidth, the roofline's points and lines, and a trial's config mapped into the kernel's
// cuda variant's space by parameter name.
#include "hardware/CpuInfo.h"
#include "hardware/MemoryBandwidth.h"
#include "hardware/Roofline.h"
#include "kernels/ConfigMapping.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/ProblemSizeJson.h"

#include <QtTest>

#include <sstream>

using namespace ts;

namespace {

// Two packages of two cores, two threads per core: 4 physical cores; the highest "cpu MHz" is 3500.
std::string cpuinfoText(const std::string& flags, bool withClock = true) {
    std::string text;
    int processor = 0;
    for (int package = 0; package < 2; ++package)
        for (int core = 0; core < 2; ++core)
            for (int thread = 0; thread < 2; ++thread) {
                text += "processor\t: " + std::to_string(processor++) + "\n";
                text += "vendor_id\t: GenuineIntel\nmodel name\t: Test CPU\n";
                if (withClock)
                    text += std::string("cpu MHz\t\t: ") + (processor == 3 ? "3500.000" : "2100.500") + "\n";
                text += "physical id\t: " + std::to_string(package) + "\n";
                text += "core id\t\t: " + std::to_string(core) + "\n";
                text += "flags\t\t: " + flags + "\n\n";
            }
    return text;
}

CpuInfo parsed(const std::string& text) {
    std::istringstream in(text);
    return CpuInfo::parseCpuinfo(in);
}

const KernelSpec& gemm() {
    static const KernelCatalog catalog({TUNESCOPE_KERNELS});
    return catalog.find("gemm");
}

Trial timed(double ms, MeasureStatus status = MeasureStatus::Ok) {
    Trial t;
    t.measurement.status = status;
    t.measurement.objective = ms;
    return t;
}

} // namespace

class TestHardwareAnalysis : public QObject {
    Q_OBJECT

private slots:
    void peakFromCpuinfoText() {
        const CpuInfo avx2 = parsed(cpuinfoText("fpu sse2 sse4_2 avx avx2 fma"));
        QCOMPARE(avx2.physicalCores, 4);
        QCOMPARE(avx2.maxClockMHz, 3500.0);
        QCOMPARE(avx2.fp32Lanes(), 8);
        QCOMPARE(avx2.flopsPerLanePerCycle(), 4);
        QVERIFY(avx2.peakGflops().has_value());
        QCOMPARE(*avx2.peakGflops(), 4 * 3.5 * 8 * 4); // 448 GFLOP/s
        const CpuInfo avx512 = parsed(cpuinfoText("sse2 avx avx2 fma avx512f"));
        QCOMPARE(*avx512.peakGflops(), 4 * 3.5 * 16 * 4);
        const CpuInfo noFma = parsed(cpuinfoText("sse2 sse4_2 avx"));
        QCOMPARE(*noFma.peakGflops(), 4 * 3.5 * 8 * 2);
        const CpuInfo arm = parsed(cpuinfoText("fp asimd evtstrm"));
        QCOMPARE(*arm.peakGflops(), 4 * 3.5 * 4 * 4);
    }

    void peakUnknownWithoutClockOrSimd() {
        QVERIFY(!parsed(cpuinfoText("sse2 avx2 fma", false)).peakGflops().has_value());
        QVERIFY(!parsed(cpuinfoText("fpu vme")).peakGflops().has_value());
        QVERIFY(!parsed("").peakGflops().has_value());
    }

    void memoryBandwidthIsMeasuredWithinBounds() {
        const MemoryBandwidth small = MemoryBandwidth::measure(1, 8 << 20);
        QVERIFY2(small.gbPerSecond > 0, small.problem.c_str());
        QCOMPARE(small.arrayBytes, std::int64_t(8 << 20));
        QVERIFY(small.repetitions >= 2 && small.repetitions <= MemoryBandwidth::kMaxRepetitions);
        QVERIFY(
            QString::fromStdString(small.description()).startsWith("measured: STREAM-like triad, 1 thread,"));
        const MemoryBandwidth& once = MemoryBandwidth::measuredOnce();
        QVERIFY(once.arrayBytes >= MemoryBandwidth::kMinArrayBytes &&
                once.arrayBytes <= MemoryBandwidth::kMaxArrayBytes);
        QCOMPARE(&MemoryBandwidth::measuredOnce(), &once);
        const CpuInfo cpu = CpuInfo::queryWithBandwidth();
        QVERIFY(cpu.memoryBandwidthGBs.has_value());
        QCOMPARE(*cpu.memoryBandwidthGBs, once.gbPerSecond);
        QCOMPARE(cpu.memoryBandwidthSource, once.description());
        QVERIFY(!CpuInfo::query().memoryBandwidthGBs.has_value());
    }

    void rooflinePointsAreFlopsOverTime() {
        CpuInfo cpu = parsed(cpuinfoText("sse2 avx avx2 fma"));
        cpu.memoryBandwidthGBs = 20.0;
        const ProblemSize size{256, 128, 64};
        const std::vector<Trial> trials = {timed(2.0), timed(0.0, MeasureStatus::CompileFailed), timed(0.5)};
        const Roofline r = Roofline::of(cpu, gemm(), size, trials);
        QVERIFY2(r.problem.empty(), r.problem.c_str());
        QCOMPARE(*r.peakGflops, *cpu.peakGflops());
        QCOMPARE(*r.bandwidthGBs, 20.0);
        QCOMPARE(*r.ridge(), *cpu.peakGflops() / 20.0);
        const double flops = 2.0 * 256 * 128 * 64;
        const double bytes = 4.0 * (256 * 64 + 64 * 128 + 256 * 128);
        QCOMPARE(*r.intensity, flops / bytes);
        QCOMPARE(r.points.size(), std::size_t(2));
        QCOMPARE(r.points[0].row, std::size_t(0));
        QCOMPARE(r.points[0].gflops, flops / 2e-3 / 1e9);
        QCOMPARE(r.points[1].row, std::size_t(2));
        QCOMPARE(r.points[1].gflops, flops / 0.5e-3 / 1e9);
        QCOMPARE(r.points[1].intensity, flops / bytes);
    }

    void rooflineSaysWhatIsUnknown() {
        CpuInfo cpu = parsed(cpuinfoText("fpu", false));
        cpu.memoryBandwidthSource = "Memory bandwidth not measured: 3 x 128 MB could not be allocated.";
        const Roofline r = Roofline::of(cpu, gemm(), gemm().defaultSize(), {timed(1.0)});
        QVERIFY(!r.peakGflops && !r.bandwidthGBs && !r.ridge());
        QVERIFY2(r.problem.find("peak GFLOP/s is unknown") != std::string::npos, r.problem.c_str());
        QVERIFY2(r.problem.find("could not be allocated") != std::string::npos, r.problem.c_str());
        QCOMPARE(r.points.size(), std::size_t(1)); // the trials are still placed
        KernelSpec noFlops = gemm();
        noFlops.flops.clear();
        const Roofline none = Roofline::of(cpu, noFlops, gemm().defaultSize(), {timed(1.0)});
        QVERIFY(none.points.empty() && !none.intensity);
        QVERIFY2(none.problem.find("gives no flops and bytes") != std::string::npos, none.problem.c_str());
    }

    void problemJsonRoundTrips() {
        const ProblemSize size{256, 128, 64};
        QCOMPARE(*parseProblemJson(gemm(), problemJson(gemm(), size)), size);
        QCOMPARE(*parseProblemJson(gemm(), R"({"K":32})"), (ProblemSize{1024, 1024, 32}));
        for (const char* bad : {"[4096, 4096]", "", "{\"Q\":1}", "{\"M\":0}", "{\"M\":1.5}", "{"})
            QVERIFY2(!parseProblemJson(gemm(), bad), bad);
    }

    void configMapsByParameterName() {
        const KernelSpace cuda(gemm(), "cuda", gemm().defaultSize());
        const SearchSpace::Index wantedIndex = *cuda.defaultIndex();
        const Config wanted = cuda.space().config(wantedIndex);
        // The same values in another order, as integers stored as reals, with a parameter cuda lacks.
        std::vector<Parameter> parameters;
        Config config;
        for (std::size_t p = cuda.space().dimension(); p-- > 0;) {
            parameters.push_back(cuda.space().parameters()[p]);
            config.emplace_back(std::in_place_type<double>, toNumber(wanted[p])); // all integers in gemm
        }
        parameters.push_back({"THREADS", ParameterType::Integer, {std::int64_t(1), std::int64_t(2)}});
        config.emplace_back(std::in_place_type<std::int64_t>, 2);
        const ConfigMapping m = ConfigMapping::of(parameters, config, cuda);
        QVERIFY2(m.index.has_value(), m.problem.c_str());
        QCOMPARE(*m.index, wantedIndex);
        QCOMPARE(m.ignored, std::vector<std::string>{"THREADS"});
    }

    void configThatCannotMapSaysWhy() {
        const KernelSpace cuda(gemm(), "cuda", gemm().defaultSize());
        const KernelSpace cpu(gemm(), "cpu", gemm().defaultSize());
        const ConfigMapping fromCpu =
            ConfigMapping::of(cpu.space().parameters(), cpu.space().config(*cpu.defaultIndex()), cuda);
        QVERIFY(!fromCpu.index);
        QVERIFY2(fromCpu.problem.find("has no BM, BN, BK, TM, TN, WR, PAD, DB of kernel gemm's cuda variant "
                                      "(its parameters are MC, NC,") != std::string::npos,
                 fromCpu.problem.c_str());
        Config outside = cuda.space().config(*cuda.defaultIndex());
        outside[0] = std::int64_t(48); // BM
        const ConfigMapping badValue = ConfigMapping::of(cuda.space().parameters(), outside, cuda);
        QVERIFY(!badValue.index);
        QCOMPARE(badValue.problem,
                 std::string(
                     "The config's BM = 48 is not one of the values of BM in kernel gemm's cuda variant."));
        Config broken = cuda.space().config(*cuda.defaultIndex());
        broken[0] = std::int64_t(32); // BM = 32, TM = 8, WR = 16: (BM // TM) % WR == 4 % 16 != 0
        broken[3] = std::int64_t(8);
        broken[5] = std::int64_t(16);
        const ConfigMapping invalid = ConfigMapping::of(cuda.space().parameters(), broken, cuda);
        QVERIFY(!invalid.index);
        QCOMPARE(
            invalid.problem,
            std::string(
                "The config breaks the constraints of kernel gemm's cuda variant at this problem size."));
    }

    // A dataset kernel's mapping: target parameters the source lacks take the target's defaults, the others
    // the source's values.
    void missingParametersTakeDefaultsWhenAsked() {
        const KernelSpace cuda(gemm(), "cuda", gemm().defaultSize());
        const std::vector<Parameter>& all = cuda.space().parameters();
        const Config defaults = cuda.space().config(*cuda.defaultIndex());
        // The source has only BM (= 128) and PAD (= 0).
        std::vector<Parameter> source;
        Config config;
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].name == "BM" || all[i].name == "PAD") {
                source.push_back(all[i]);
                config.emplace_back(std::int64_t(all[i].name == "BM" ? 128 : 0));
            }
        QVERIFY(!ConfigMapping::of(source, config, cuda).index);
        const ConfigMapping m =
            ConfigMapping::of(source, config, cuda, ConfigMapping::MissingParameters::TakeDefaults);
        QVERIFY2(m.index.has_value(), m.problem.c_str());
        QCOMPARE(m.defaulted.size(), all.size() - 2);
        const Config mapped = cuda.space().config(*m.index);
        for (std::size_t i = 0; i < all.size(); ++i) {
            const std::string expected = all[i].name == "BM"    ? std::string("128")
                                         : all[i].name == "PAD" ? std::string("0")
                                                                : toString(defaults[i]);
            QCOMPARE(toString(mapped[i]), expected);
        }
    }
};

QTEST_GUILESS_MAIN(TestHardwareAnalysis)
#include "TestHardwareAnalysis.moc"
