// NVRTC builds of every CUDA kernel (no GPU needed): samples of each space, including its corners, compile
// for sm_80 and sm_90; ptxas' report is parsed; failures carry the log; the cubin cache serves repeats.
#ifdef TUNESCOPE_WITH_CUDA

#include "cuda/CudaStaticAnalyzer.h"
#include "cuda/NvrtcCompiler.h"
#include "cuda/NvrtcProgram.h"
#include "cuda/PtxasInfo.h"
#include "hardware/GpuDatabase.h"
#include "kernels/KernelCatalog.h"
#include "util/Error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>

using namespace ts;

namespace {

const KernelCatalog& catalog() {
    static const KernelCatalog c(std::vector<std::filesystem::path>{TUNESCOPE_KERNELS});
    return c;
}

// The default, for every parameter a config with its largest value, the valid configs with the fewest and
// most threads per block (the corners of the space), and one seeded random config.
std::vector<SearchSpace::Index> sampleOf(const KernelSpec& spec, const KernelSpace& kernel) {
    const SearchSpace& space = kernel.space();
    const auto& valid = space.validIndices();
    std::set<SearchSpace::Index> chosen;
    if (auto d = kernel.defaultIndex())
        chosen.insert(*d);
    for (std::size_t p = 0; p < space.dimension(); ++p) {
        const auto extreme = [&](bool largest) {
            std::optional<SearchSpace::Index> best;
            std::uint32_t bestDigit = 0;
            for (SearchSpace::Index index : valid) {
                const std::uint32_t digit = space.digits(index)[p];
                if (!best || (largest ? digit > bestDigit : digit < bestDigit)) {
                    best = index;
                    bestDigit = digit;
                }
            }
            return *best;
        };
        chosen.insert(
            extreme(true)); // large values stress registers and shared memory; small ones compile trivially
    }
    auto byThreads = [&](SearchSpace::Index a, SearchSpace::Index b) {
        return LaunchShape::of(spec, kernel, a).threadsPerBlock() <
               LaunchShape::of(spec, kernel, b).threadsPerBlock();
    };
    chosen.insert(*std::min_element(valid.begin(), valid.end(), byThreads));
    chosen.insert(*std::max_element(valid.begin(), valid.end(), byThreads));
    std::mt19937_64 rng(7);
    for (SearchSpace::Index index : space.sample(1, SpaceMode::Constrained, rng))
        chosen.insert(index);
    return {chosen.begin(), chosen.end()};
}

// Static shared memory the gemm source declares: (1 + DB) stages of A (BK x (BM + PAD)) and B (BK x (BN +
// PAD)).
std::int64_t gemmSharedBytes(const SearchSpace& space, SearchSpace::Index index) {
    const Config c = space.config(index);
    auto value = [&](const char* name) { return std::get<std::int64_t>(c[*space.parameterIndex(name)]); };
    return 4 * (1 + value("DB")) * value("BK") * (value("BM") + value("BN") + 2 * value("PAD"));
}

const char* kPtxasLog = R"(ptxas info    : 24 bytes gmem, 48 bytes cmem[4]
ptxas info    : Function properties for helper
ptxas         .     16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'other' for 'sm_80'
ptxas info    : Function properties for other
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, 360 bytes cmem[0]
ptxas info    : Compiling entry function 'gemm' for 'sm_80'
ptxas info    : Function properties for gemm
ptxas         .     40 bytes stack frame, 44 bytes spill stores, 36 bytes spill loads
ptxas info    : Used 255 registers, used 2 barriers, 17408 bytes smem, 388 bytes cmem[0], 8 bytes cmem[2]
ptxas info    : Compile time = 107.449 ms
)";

} // namespace

class TestNvrtc : public QObject {
    Q_OBJECT

private slots:
    void ptxasReport() {
        const auto gemm = parsePtxasInfo(kPtxasLog, "gemm");
        QVERIFY(gemm.has_value());
        QCOMPARE(gemm->registersPerThread, 255);
        QCOMPARE(gemm->barriers, 2);
        QCOMPARE(gemm->staticSharedBytes, std::int64_t(17408));
        QCOMPARE(gemm->stackBytes, std::int64_t(40));
        QCOMPARE(gemm->spillStoreBytes, std::int64_t(44));
        QCOMPARE(gemm->spillLoadBytes, std::int64_t(36));
        QCOMPARE(gemm->constantBytes, std::int64_t(48));
        QVERIFY(gemm->spills());
        const auto other = parsePtxasInfo(kPtxasLog, "other");
        QVERIFY(other.has_value());
        QCOMPARE(other->registersPerThread, 12);
        QCOMPARE(other->barriers, 0);
        QCOMPARE(other->staticSharedBytes, std::int64_t(0));
        QVERIFY(!other->spills());
        QVERIFY(!parsePtxasInfo(kPtxasLog, "helper").has_value());
        QVERIFY(!parsePtxasInfo("", "gemm").has_value());
    }

    void nvrtcIdentity() {
        QVERIFY(NvrtcProgram::version().rfind("13.", 0) == 0);
        const auto archs = NvrtcProgram::supportedArchitectures();
        QVERIFY(std::find(archs.begin(), archs.end(), 80) != archs.end());
        QVERIFY(std::find(archs.begin(), archs.end(), 90) != archs.end());
        std::string note;
        QCOMPARE(CudaStaticAnalyzer::targetArchitecture(GpuDatabase::builtin().get("H100"), &note),
                 std::string("sm_90"));
        QVERIFY(note.empty());
        // CUDA 13's NVRTC has no sm_70: V100 is analysed with the oldest newer architecture, and says so.
        if (std::find(archs.begin(), archs.end(), 70) == archs.end()) {
            QCOMPARE(CudaStaticAnalyzer::targetArchitecture(GpuDatabase::builtin().get("V100"), &note),
                     std::string("sm_75"));
            QVERIFY2(note.find("sm_70") != std::string::npos, note.c_str());
        }
    }

    // Every CUDA kernel of the repository: a sample including the corners compiles for sm_80 and sm_90.
    void everyKernelCompiles_data() {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("architecture");
        int kernels = 0;
        for (const KernelSpec& spec : catalog().all()) {
            if (!spec.variant("cuda"))
                continue;
            ++kernels;
            for (const char* arch : {"sm_80", "sm_90"})
                QTest::newRow(qPrintable(QString("%1 %2").arg(spec.name.c_str(), arch)))
                    << QString::fromStdString(spec.name) << QString(arch);
        }
        QVERIFY2(kernels >= 1, "no kernel with a cuda variant in kernels/");
    }
    void everyKernelCompiles() {
        QFETCH(QString, kernel);
        QFETCH(QString, architecture);
        const KernelSpec& spec = catalog().find(kernel.toStdString());
        const KernelSpace space(spec, "cuda", spec.defaultSize());
        const std::vector<SearchSpace::Index> sample = sampleOf(spec, space);
        QVERIFY(sample.size() >= 3);
        QTemporaryDir cache;
        NvrtcCompiler compiler(cache.path().toStdString());
        CudaStaticAnalyzer analyzer(spec, space, GpuDatabase::builtin().get("H100"), compiler,
                                    architecture.toStdString());
        const std::vector<StaticProfile> profiles = analyzer.analyze(sample, 2);
        QCOMPARE(profiles.size(), sample.size());
        for (const StaticProfile& p : profiles) {
            const QString where = QString("%1 [%2]").arg(kernel, space.space().key(p.index).c_str());
            QVERIFY2(p.compiled, qPrintable(where + ": " + QString::fromStdString(p.log)));
            QVERIFY2(p.resources.registersPerThread > 0 && p.resources.registersPerThread <= 255,
                     qPrintable(where));
            QVERIFY(p.log.find("for '" + architecture.toStdString() + "'") != std::string::npos);
            QVERIFY(p.launch.threadsPerBlock() >= 1 && p.launch.blocks() >= 1);
            if (spec.name == "gemm")
                QCOMPARE(p.resources.staticSharedBytes, gemmSharedBytes(space.space(), p.index));
        }
        QCOMPARE(compiler.misses(), std::int64_t(sample.size()));
    }

    void gemmDefaultProfile() {
        const KernelSpec& spec = catalog().find("gemm");
        const KernelSpace space(spec, "cuda", {1024, 1024, 1024});
        NvrtcCompiler compiler(std::filesystem::path{});
        CudaStaticAnalyzer analyzer(spec, space, GpuDatabase::builtin().get("A100"), compiler);
        QCOMPARE(analyzer.architecture(), std::string("sm_80"));
        const StaticProfile p = analyzer.profile(*space.defaultIndex());
        QVERIFY2(p.fits(), p.unfitReason().c_str());
        QCOMPARE(p.launch.threadsPerBlock(), std::int64_t(256)); // (64 / 4) * (64 / 4)
        QCOMPARE(p.launch.grid[0], std::int64_t(16));
        QCOMPARE(p.launch.grid[1], std::int64_t(16));
        QCOMPARE(p.occupancy.activeBlocksPerSm, OccupancyCalculator(GpuDatabase::builtin().get("A100"))
                                                    .compute(p.resources, 256, 0)
                                                    .activeBlocksPerSm);
        QCOMPARE(p.resources.staticSharedBytes, std::int64_t(17408));
    }

    void compileFailureCarriesTheLog() {
        QTemporaryDir dir;
        const std::filesystem::path source = std::filesystem::path(dir.path().toStdString()) / "broken.cu";
        std::ofstream(source) << "extern \"C\" __global__ void k(float* a) { a[0] = undeclared_name; }\n";
        NvrtcCompiler compiler(std::filesystem::path(dir.path().toStdString()) / "cache");
        const CudaBuildResult r = compiler.compile({source, "k", "sm_90", {}, {}});
        QVERIFY(!r.ok);
        QVERIFY(r.cubin.empty());
        QVERIFY2(r.log.find("undeclared_name") != std::string::npos, r.log.c_str());
        // The failure is cached too: asking again compiles nothing.
        const CudaBuildResult again = compiler.compile({source, "k", "sm_90", {}, {}});
        QVERIFY(again.cacheHit && !again.ok);
        QCOMPARE(again.log, r.log);
    }

    void cacheServesRepeatsAndSeesChanges() {
        QTemporaryDir dir;
        const std::filesystem::path folder = dir.path().toStdString();
        const std::filesystem::path source = folder / "k.cu";
        std::ofstream(source) << "#include \"k.cuh\"\nextern \"C\" __global__ void k(float* a) { "
                                 "a[threadIdx.x] = VALUE * SCALE; }\n";
        std::ofstream(folder / "k.cuh") << "#define SCALE 2.0f\n";
        NvrtcCompiler compiler(folder / "cache");
        const CudaBuildRequest request{source, "k", "sm_80", {"-DVALUE=3"}, {}};
        const CudaBuildResult first = compiler.compile(request);
        QVERIFY2(first.ok, first.log.c_str());
        QVERIFY(!first.cacheHit);
        QVERIFY(!first.cubin.empty());
        const CudaBuildResult second = NvrtcCompiler(folder / "cache").compile(request);
        QVERIFY(second.cacheHit);
        QCOMPARE(second.cubin, first.cubin);
        QCOMPARE(second.resources->registersPerThread, first.resources->registersPerThread);
        QVERIFY(compiler.compile({source, "k", "sm_80", {"-DVALUE=4"}, {}}).cacheHit == false);
        QVERIFY(compiler.compile({source, "k", "sm_90", {"-DVALUE=3"}, {}}).cacheHit == false);
        std::ofstream(folder / "k.cuh") << "#define SCALE 5.0f\n"; // a header next to the source changes
        QVERIFY(compiler.compile(request).cacheHit == false);
    }

    // A parameter macro that no source names (the header beside it counts) cannot change the
    // cubin: configs that differ only in it are built once, by compile() across processes and by
    // compileAll() within one call. A variant's own -D options are always passed.
    void macrosNoSourceNamesShareOneBuild() {
        QTemporaryDir dir;
        const std::filesystem::path folder = dir.path().toStdString();
        const std::filesystem::path source = folder / "k.cu";
        std::ofstream(source)
            << "#include \"k.cuh\"\n// read_only is read by the header\n"
               "extern \"C\" __global__ void k(float* a) { a[threadIdx.x] = VALUE + LOADS; }\n";
        std::ofstream(folder / "k.cuh")
            << "#if read_only\n#define LOADS 1.0f\n#else\n#define LOADS 2.0f\n#endif\n";
        NvrtcCompiler compiler(folder / "cache");
        auto request = [&](std::vector<std::string> macros, std::vector<std::string> flags = {}) {
            return CudaBuildRequest{source, "k", "sm_80", std::move(flags), std::move(macros)};
        };
        const CudaBuildRequest base = request({"-DVALUE=3", "-Dread_only=1", "-Duse_shmem=0"});
        const CudaBuildResult first = compiler.compile(base);
        QVERIFY2(first.ok, first.log.c_str());
        QVERIFY(!first.cacheHit);
        // use_shmem is named nowhere, and use_shmemX is not use_shmem
        QCOMPARE(compiler.hash(request({"-DVALUE=3", "-Dread_only=1", "-Duse_shmem=1"})), first.hash);
        QCOMPARE(compiler.hash(request({"-DVALUE=3", "-Dread_only=1"})), first.hash);
        QVERIFY(compiler.compile(request({"-DVALUE=3", "-Dread_only=1", "-Duse_shmem=1"})).cacheHit);
        // read_only (header), VALUE (source) and a variant option always count
        QVERIFY(compiler.hash(request({"-DVALUE=3", "-Dread_only=0", "-Duse_shmem=0"})) != first.hash);
        QVERIFY(compiler.hash(request({"-DVALUE=4", "-Dread_only=1", "-Duse_shmem=0"})) != first.hash);
        QVERIFY(compiler.hash(request({"-DVALUE=3", "-Dread_only=1"}, {"-Duse_shmem=1"})) != first.hash);

        // Within one compileAll: four requests, two builds (plus one already cached).
        NvrtcCompiler fresh(folder / "cache2");
        const std::vector<CudaBuildRequest> requests{
            request({"-DVALUE=3", "-Dread_only=1", "-Duse_shmem=0"}),
            request({"-DVALUE=3", "-Dread_only=1", "-Duse_shmem=1"}),
            request({"-DVALUE=5", "-Dread_only=1", "-Duse_shmem=0"}),
            request({"-DVALUE=5", "-Dread_only=1", "-Duse_shmem=1"})};
        const std::vector<CudaBuildResult> results = fresh.compileAll(requests, 2);
        QCOMPARE(fresh.misses(), std::int64_t{2});
        QCOMPARE(fresh.hits(), std::int64_t{2});
        QCOMPARE(results[1].hash, results[0].hash);
        QCOMPARE(results[1].cubin, results[0].cubin);
        QVERIFY(results[1].cacheHit && !results[0].cacheHit);
        QVERIFY(results[2].hash != results[0].hash);
        QCOMPARE(results[3].hash, results[2].hash);
        QVERIFY(results[3].resources.has_value());
        QCOMPARE(results[3].resources->registersPerThread, results[2].resources->registersPerThread);
    }

    // With a driver loaded, NVRTC 12.9+ would serve a repeated program from the driver's compute cache with
    // no ptxas report (seen on an H200: the resources were lost and configs read as "does not compile"). Each
    // compile must carry the report, however often the same program is built.
    void repeatedCompilesKeepThePtxasReport() {
        QTemporaryDir dir;
        const std::filesystem::path source = std::filesystem::path(dir.path().toStdString()) / "k.cu";
        std::ofstream(source) << "extern \"C\" __global__ void k(float* a) { a[threadIdx.x] *= 2.0f; }\n";
        for (int i = 0; i < 3; ++i) {
            NvrtcCompiler compiler(std::filesystem::path{});
            const CudaBuildResult r = compiler.compile({source, "k", "sm_90", {}, {}});
            QVERIFY2(r.ok, r.log.c_str());
            QVERIFY2(r.resources.has_value(), r.log.c_str());
        }
    }

    void badRequestsAreErrors() {
        QTemporaryDir dir;
        const std::filesystem::path source = std::filesystem::path(dir.path().toStdString()) / "k.cu";
        std::ofstream(source) << "extern \"C\" __global__ void k() {}\n";
        NvrtcCompiler compiler(std::filesystem::path{});
        QVERIFY_THROWS_EXCEPTION(Error, compiler.compile({source, "k", "ampere", {}, {}}));
        QVERIFY_THROWS_EXCEPTION(Error, compiler.compile({source, "k", "sm_90", {"--no-such-option"}, {}}));
        QVERIFY_THROWS_EXCEPTION(Error,
                                 compiler.compile({source.string() + ".missing", "k", "sm_90", {}, {}}));
    }
};

#else

#include <QtTest>

class TestNvrtc : public QObject {
    Q_OBJECT

private slots:
    void withoutCudaBackend() { QSKIP("built without the CUDA backend (TUNESCOPE_WITH_CUDA=OFF)"); }
};

#endif

QTEST_APPLESS_MAIN(TestNvrtc)
#include "TestNvrtc.moc"
