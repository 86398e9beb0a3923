// The GEMM templates run on the CPU (tests/support/CudaHostEmulation.h): each config of a sample is built
// with the host compiler beside a launcher and its output is compared with a double-precision GEMM;
// gemm_async at a size that is not a multiple of any tile, gemm_tc (WMMA emulated) at a size its tiles
// divide. Inputs are multiples of 1/64 in [-1, 1], exact in fp16 and fp32. This checks a template's indexing,
// edge guards and copy pipeline on a machine without a GPU; the GPU itself checks the kernels in TestCudaGpu
// (scripts/gpu-check).
#include "build/CommandRunner.h"
#include "build/HostCompiler.h"
#include "hardware/LaunchShape.h"
#include "kernels/KernelCatalog.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <set>

using namespace ts;

namespace {

const KernelCatalog& catalog() {
    static const KernelCatalog c(std::vector<std::filesystem::path>{TUNESCOPE_KERNELS});
    return c;
}

const HostCompiler& compiler() {
    static const HostCompiler c = HostCompiler::detect();
    return c;
}

// gemm_async: no tile divides M, N, K (K and N stay multiples of 4, its constraint); gemm_tc: every tile
// does.
ProblemSize sizeOf(const QString& kernel) {
    return kernel == "gemm_tc" ? ProblemSize{256, 256, 128} : ProblemSize{70, 52, 36};
}

void writeFloats(const std::filesystem::path& file, const std::vector<float>& values) {
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), std::streamsize(values.size() * sizeof(float)));
}

// The configs checked: the default, one with each parameter at each of its values (first valid found in a
// seeded shuffle), so every value of every parameter runs at least once.
std::vector<SearchSpace::Index> sampleOf(const KernelSpace& kernel) {
    const SearchSpace& space = kernel.space();
    std::vector<SearchSpace::Index> valid(space.validIndices().begin(), space.validIndices().end());
    std::mt19937_64 rng(7);
    std::shuffle(valid.begin(), valid.end(), rng);
    std::set<SearchSpace::Index> chosen;
    if (auto d = kernel.defaultIndex())
        chosen.insert(*d);
    for (std::size_t p = 0; p < space.dimension(); ++p) {
        std::set<std::uint32_t> covered;
        for (SearchSpace::Index index : chosen)
            covered.insert(space.digits(index)[p]);
        for (SearchSpace::Index index : valid)
            if (covered.insert(space.digits(index)[p]).second)
                chosen.insert(index);
    }
    return {chosen.begin(), chosen.end()};
}

} // namespace

class TestKernelEmulation : public QObject {
    Q_OBJECT

private slots:
    void gemmTemplatesMatchAGemm_data() {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<qulonglong>("index");
        QTest::addColumn<bool>("deferred");
        for (const QString kernel : {"gemm_async", "gemm_tc"}) {
            const KernelSpec& spec = catalog().find(kernel.toStdString());
            const KernelSpace space(spec, "cuda", sizeOf(kernel));
            for (SearchSpace::Index index : sampleOf(space))
                for (const bool deferred : {true, false})
                    QTest::newRow(qPrintable(QString("%1 %2 %3")
                                                 .arg(kernel, space.space().key(index).c_str(),
                                                      deferred ? "copies at wait" : "copies at once")))
                        << kernel << qulonglong(index) << deferred;
        }
    }

    // Copies held back until their wait (the latest a GPU may complete them) and copies completed at once
    // (the earliest): the result must not depend on when they land.
    void gemmTemplatesMatchAGemm() {
        QFETCH(QString, kernel);
        QFETCH(qulonglong, index);
        QFETCH(bool, deferred);
        const KernelSpec& spec = catalog().find(kernel.toStdString());
        const ProblemSize size = sizeOf(kernel);
        const KernelSpace space(spec, "cuda", size);
        const LaunchShape launch = LaunchShape::of(spec, space, index);
        QTemporaryDir dir;
        const std::filesystem::path folder = dir.path().toStdString();
        const KernelVariant& variant = spec.variants.at("cuda");
        const std::filesystem::path source = spec.specFile.parent_path() / variant.source;
        const char* input = spec.arguments.at(0).type == ElementType::Float16 ? "_Float16" : "float";
        // A program of its own, built with AddressSanitizer: a read or write outside A, B or C fails the run.
        std::ofstream(folder / "launch.cpp")
            << "#include \"CudaHostEmulation.h\"\n#include \"" << source.string() << "\"\n"
            << "#include <cstdio>\n#include <cstdlib>\n"
               "std::vector<float> readAll(const char* path, std::size_t count) {\n"
               "  std::vector<float> v(count);\n  FILE* f = std::fopen(path, \"rb\");\n"
               "  if (!f || std::fread(v.data(), sizeof(float), count, f) != count) std::exit(3);\n"
               "  std::fclose(f);\n  return v;\n}\n"
               "int main(int, char** argv) {\n"
               "  const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), k = std::atoi(argv[3]);\n"
               "  const std::vector<float> a = readAll(\"a.bin\", std::size_t(m) * k), b = "
               "readAll(\"b.bin\", "
               "std::size_t(k) * n);\n"
               "  std::vector<"
            << input
            << "> ai(a.begin(), a.end()), bi(b.begin(), b.end());\n"
               "  std::vector<float> c(std::size_t(m) * n, __builtin_nanf(\"\"));\n"
               "  tunescopeLaunch({unsigned(std::atoi(argv[4])), unsigned(std::atoi(argv[5])), 1}, "
               "{unsigned(std::atoi(argv[6])), 1, 1}, [&] { "
            << variant.entry
            << "(ai.data(), bi.data(), c.data(), m, n, k); });\n"
               "  FILE* f = std::fopen(\"c.bin\", \"wb\");\n"
               "  return f && std::fwrite(c.data(), sizeof(float), c.size(), f) == c.size() && "
               "std::fclose(f) == 0 ? 0 : 4;\n}\n";
        std::vector<std::string> command{compiler().program(),
                                         "-std=c++20",
                                         "-O1",
                                         "-g",
                                         "-fsanitize=address",
                                         "-fno-omit-frame-pointer",
                                         "-Wall",
                                         "-Wextra",
                                         "-Wno-unknown-pragmas",
                                         "-pthread",
                                         "-I" + std::string(TUNESCOPE_TEST_SUPPORT),
                                         "-I" + std::string(TUNESCOPE_TEST_SUPPORT) + "/emulation"};
        for (const std::string& flag : space.buildFlags(index))
            command.push_back(flag);
        if (deferred)
            command.push_back("-DTUNESCOPE_EMULATED_COPIES");
        command.insert(command.end(), {(folder / "launch.cpp").string(), "-o", (folder / "launch").string()});
        const CommandResult built = runCommand(command);
        QVERIFY2(built.succeeded(), built.output.c_str());

        const int m = int(size[0]), n = int(size[1]), k = int(size[2]);
        std::mt19937 rng(11);
        std::uniform_int_distribution<int> step(-64, 64);
        std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(m) * n);
        for (float& x : a)
            x = float(step(rng)) / 64.0f;
        for (float& x : b)
            x = float(step(rng)) / 64.0f;
        writeFloats(folder / "a.bin", a);
        writeFloats(folder / "b.bin", b);
        QProcess run;
        run.setWorkingDirectory(dir.path());
        run.setProcessChannelMode(QProcess::MergedChannels);
        run.start((folder / "launch").c_str(),
                  {QString::number(m), QString::number(n), QString::number(k),
                   QString::number(launch.grid[0]), QString::number(launch.grid[1]),
                   QString::number(launch.threadsPerBlock())});
        QVERIFY(run.waitForFinished(120000));
        QVERIFY2(run.exitStatus() == QProcess::NormalExit && run.exitCode() == 0, run.readAll().constData());
        std::ifstream out(folder / "c.bin", std::ios::binary);
        QVERIFY(out.read(reinterpret_cast<char*>(c.data()), std::streamsize(c.size() * sizeof(float))));
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double expected = 0;
                for (int p = 0; p < k; ++p)
                    expected += double(a[std::size_t(i) * k + p]) * double(b[std::size_t(p) * n + j]);
                const float got = c[std::size_t(i) * n + j];
                QVERIFY2(
                    std::abs(got - expected) <= 1e-4 + 1e-4 * std::abs(expected),
                    qPrintable(QString("C[%1][%2] = %3, expected %4").arg(i).arg(j).arg(got).arg(expected)));
            }
    }
};

QTEST_GUILESS_MAIN(TestKernelEmulation)
#include "TestKernelEmulation.moc"
