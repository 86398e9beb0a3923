#include "ErrorOf.h"
#include "kernels/BuildFlags.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpecReader.h"
#include "space/Expression.h"
#include "util/Error.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <dlfcn.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

using namespace ts;

namespace {

namespace fs = std::filesystem;

using ts::test::errorOf;

void writeFile(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

// A small valid spec; tests break one key at a time.
const char* const kToySpec = R"({
  "name": "toy",
  "description": "y = 2 * x",
  "problem": [ {"name": "M", "default": 64}, {"name": "N", "default": 8} ],
  "flops": "M * N",
  "bytes": "8 * M * N",
  "arguments": [
    {"name": "x", "type": "float32", "count": "M * N"},
    {"name": "y", "type": "float32", "count": "M * N", "fill": "zero", "output": true}
  ],
  "reference": {"source": "ref.cpp"},
  "variants": {
    "cpu": {
      "source": "toy.cpp",
      "parameters": [
        {"name": "T", "values": [1, 2, 4, 8, 16, 32], "default": 4},
        {"name": "FAST", "values": [true, false], "default": true},
        {"name": "ORDER", "values": ["ij", "ji"], "default": "ij"}
      ],
      "constraints": ["T <= M", "ORDER == 'ij' or T > 1"]
    }
  }
})";

fs::path writeToyKernel(const fs::path& folder, std::string spec = kToySpec) {
    writeFile(folder / "toy.cpp", "// toy\n");
    writeFile(folder / "ref.cpp", "// ref\n");
    writeFile(folder / "kernel.json", spec);
    return folder / "kernel.json";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos) {
        throw std::logic_error("test spec has no \"" + from + "\"");
    }
    return text.replace(at, from.size(), to);
}

// Restores an environment variable when the test ends.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const QByteArray& value)
        : m_name(name), m_old(qgetenv(name)), m_had(qEnvironmentVariableIsSet(name)) {
        qputenv(name, value);
    }
    ~ScopedEnv() {
        if (m_had)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }

private:
    const char* m_name;
    QByteArray m_old;
    bool m_had;
};

struct Library {
    void* handle = nullptr;
    explicit Library(const fs::path& path) : handle(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {}
    ~Library() {
        if (handle)
            dlclose(handle);
    }
    Library(const Library&) = delete;
    Library& operator=(const Library&) = delete;
};

using KernelFunction = void (*)(void* const*, const std::int64_t*);

// Runs a compiled kernel and reference on seeded inputs; returns "" or what went wrong.
std::string compareWithReference(const KernelSpec& spec, const ProblemSize& size, const fs::path& kernelSo,
                                 const fs::path& referenceSo) {
    Library kernel(kernelSo), reference(referenceSo);
    if (!kernel.handle || !reference.handle)
        return std::string("dlopen failed: ") + dlerror();
    auto kernelFn =
        reinterpret_cast<KernelFunction>(dlsym(kernel.handle, spec.variant("cpu")->entry.c_str()));
    auto referenceFn = reinterpret_cast<KernelFunction>(dlsym(reference.handle, "tunescope_reference"));
    if (!kernelFn || !referenceFn)
        return "a symbol is missing";
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<std::vector<float>> out, ref;
    for (const auto& argument : spec.arguments) {
        std::vector<float> data(static_cast<std::size_t>(argumentCount(spec, argument, size)), 0.0f);
        if (argument.fill == ArgumentFill::Random)
            for (auto& v : data)
                v = uniform(rng);
        out.push_back(data);
        ref.push_back(std::move(data));
    }
    std::vector<void*> outPtrs, refPtrs;
    for (std::size_t i = 0; i < out.size(); ++i) {
        outPtrs.push_back(out[i].data());
        refPtrs.push_back(ref[i].data());
    }
    kernelFn(outPtrs.data(), size.data());
    referenceFn(refPtrs.data(), size.data());
    for (std::size_t a = 0; a < spec.arguments.size(); ++a) {
        if (!spec.arguments[a].output)
            continue;
        for (std::size_t i = 0; i < out[a].size(); ++i) {
            const double limit = spec.tolerance.absolute + spec.tolerance.relative * std::fabs(ref[a][i]);
            if (!(std::fabs(out[a][i] - ref[a][i]) <= limit))
                return spec.arguments[a].name + "[" + std::to_string(i) + "] = " + std::to_string(out[a][i]) +
                       ", reference " + std::to_string(ref[a][i]);
        }
    }
    return {};
}

QStringList toQt(const std::vector<std::string>& items) {
    QStringList list;
    for (const auto& item : items)
        list << QString::fromStdString(item);
    return list;
}

QStringList catalogNames(const KernelCatalog& catalog) {
    QStringList names;
    for (const auto& spec : catalog.all())
        names << QString::fromStdString(spec.name);
    return names;
}

// The repository's kernels (other engineers add CUDA-only ones, so the tests do not hard-code the list).
QStringList bundledNames() {
    return catalogNames(KernelCatalog({TUNESCOPE_KERNELS}));
}

} // namespace

class TestKernelSpecs : public QObject {
    Q_OBJECT

private slots:
    void bundledKernelsLoad();
    void rejectsMalformedSpecs_data();
    void rejectsMalformedSpecs();
    void catalogSearchesThePath();
    void catalogReportsUnknownAndShadowedKernels();
    void parsesProblemSizes();
    void rejectsBadProblemSizes_data();
    void rejectsBadProblemSizes();
    void evaluatesSizeExpressions();
    void bindsProblemSizesIntoConstraints();
    void spaceMatchesDirectEvaluation();
    void unsatisfiableSizeIsOneSentence();
    void buildFlagsFollowTheMacroRules();
    void bundledKernelsCompileAndMatchReference();
};

void TestKernelSpecs::bundledKernelsLoad() {
    // Every bundled spec loads; those with a CPU variant (other kernels may be CUDA-only) get a sound space.
    QStringList withCpu;
    for (const auto& entry : fs::directory_iterator(TUNESCOPE_KERNELS)) {
        if (!fs::exists(entry.path() / "kernel.json"))
            continue;
        const KernelSpec spec = readKernelSpec(entry.path() / "kernel.json");
        QVERIFY(fs::exists(spec.reference.source));
        QVERIFY(kernelFlops(spec, spec.defaultSize()).value_or(0) > 0);
        const KernelVariant* cpu = spec.variant("cpu");
        if (!cpu)
            continue;
        withCpu << QString::fromStdString(spec.name);
        QVERIFY(fs::exists(cpu->source));
        QCOMPARE(cpu->defaults.size(), cpu->parameters.size());
        const KernelSpace space(spec, "cpu", spec.defaultSize());
        QVERIFY2(space.defaultIndex().has_value(), spec.name.c_str());
        // A genuine tuning space: more than a handful of valid configs, and constraints that bite.
        QVERIFY(space.space().validCount() >= 100);
        QVERIFY(space.space().validCount() < space.space().productSize());
    }
    withCpu.sort();
    QCOMPARE(withCpu, QStringList({"conv2d", "gemm", "softmax"}));
}

void TestKernelSpecs::rejectsMalformedSpecs_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing key")
        << R"("problem": [ {"name": "M", "default": 64}, {"name": "N", "default": 8} ],)"
        << ""
        << "kernel.json: problem is missing.";
    QTest::newRow("bad default")
        << R"("default": 4})"
        << R"("default": 48})"
        << "kernel.json: variants.cpu.parameters[0].default 48 is not one of its values.";
    QTest::newRow("unknown identifier")
        << R"("T <= M")"
        << R"("T <= Q")"
        << "kernel.json: variants.cpu.constraints[0] \"T <= Q\" names \"Q\", which is not one of FAST, M, N, "
           "ORDER, T.";
    QTest::newRow("unknown identifier in a count")
        << R"("count": "M * N"})"
        << R"("count": "M * L"})"
        << "kernel.json: arguments[0].count \"M * L\" names \"L\", which is not one of M, N.";
    QTest::newRow("missing source")
        << R"("source": "toy.cpp")"
        << R"("source": "missing.cpp")"
        << "kernel.json: variants.cpu.source \"missing.cpp\" does not exist next to "
           "the spec.";
    QTest::newRow("syntax error")
        << R"("T <= M")"
        << R"("T <= ")"
        << "kernel.json: Cannot parse variants.cpu.constraints[0] \"T <= \": unexpected "
           "end at column 6.";
    QTest::newRow("unknown key") << R"("flops": "M * N",)"
                                 << R"("flop": "M * N",)"
                                 << "kernel.json: flop is not a known key";
    QTest::newRow("non-positive size default")
        << R"({"name": "N", "default": 8})"
        << R"({"name": "N", "default": 0})"
        << "kernel.json: problem[1].default 0 is not a positive integer.";
    QTest::newRow("default violates a constraint") << R"({"name": "M", "default": 64})"
                                                   << R"({"name": "M", "default": 2})"
                                                   << "kernel.json: variants.cpu.constraints[0] \"T <= M\" "
                                                      "is false for the default config at the default "
                                                      "size M=2,N=8.";
    QTest::newRow("no output") << R"("fill": "zero", "output": true)"
                               << R"("fill": "zero")"
                               << "kernel.json: arguments has no argument with \"output\": true";
    QTest::newRow("mixed value types") << R"([1, 2, 4, 8, 16, 32])"
                                       << R"([1, "two"])"
                                       << "kernel.json: variants.cpu.parameters[0].values mixes value types";
    QTest::newRow("unknown backend") << R"("cpu": {)"
                                     << R"("opencl": {)"
                                     << "kernel.json: variants.opencl is not a known backend (cpu, cuda).";
    QTest::newRow("unknown GPU reference")
        << R"("reference": {"source": "ref.cpp"})"
        << R"("reference": {"source": "ref.cpp", "gpu": "cublas_dgemm"})"
        << "kernel.json: reference.gpu \"cublas_dgemm\" is not a GPU reference (known: cublas_sgemm, "
           "cublas_gemm_f16).";
    QTest::newRow("GPU reference of another shape")
        << R"("reference": {"source": "ref.cpp"})"
        << R"("reference": {"source": "ref.cpp", "gpu": "cublas_sgemm"})"
        << "kernel.json: reference.gpu \"cublas_sgemm\" computes C = A * B: it needs the problem sizes M, N, "
           "K "
           "and the arguments A, B (float32) and the output C (float32).";
    QTest::newRow("not json") << R"("name": "toy",)"
                              << R"("name": "toy")"
                              << "kernel.json: not valid JSON";
}

void TestKernelSpecs::rejectsMalformedSpecs() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const fs::path file = writeToyKernel(fs::path(dir.path().toStdString()) / "toy",
                                         replaced(kToySpec, from.toStdString(), to.toStdString()));
    const QString message = QString::fromStdString(errorOf([&] { readKernelSpec(file); }));
    QVERIFY2(message.startsWith(QString::fromStdString(file.string()) + ":"), qPrintable(message));
    QVERIFY2(message.contains(expected), qPrintable(message));
    QVERIFY2(!message.contains('\n'), qPrintable(message));
}

void TestKernelSpecs::catalogSearchesThePath() {
    QTemporaryDir pathA, pathB, data;
    const fs::path a(pathA.path().toStdString()), b(pathB.path().toStdString()),
        xdg(data.path().toStdString());
    writeToyKernel(a / "toy");
    writeToyKernel(b,
                   replaced(kToySpec, R"("name": "toy")", R"("name": "direct")")); // a kernel folder itself
    writeToyKernel(xdg / "tunescope" / "kernels" / "mine",
                   replaced(kToySpec, R"("name": "toy")", R"("name": "mine")"));
    const ScopedEnv path("TUNESCOPE_KERNEL_PATH",
                         QByteArray(a.c_str()) + ":" + QByteArray(b.c_str()) + "::/nonexistent");
    const ScopedEnv home("XDG_DATA_HOME", QByteArray(xdg.c_str()));

    const auto roots = KernelCatalog::searchPath();
    QCOMPARE(roots.size(), std::size_t(5));
    QCOMPARE(roots.front(), fs::path(TUNESCOPE_KERNELS));
    QCOMPARE(roots.back(), xdg / "tunescope" / "kernels");

    const KernelCatalog catalog;
    QStringList names = bundledNames();
    names << "direct"
          << "mine"
          << "toy";
    names.sort();
    QCOMPARE(names, catalogNames(catalog));
    QVERIFY2(catalog.problems().empty(),
             catalog.problems().empty() ? "" : catalog.problems().front().c_str());
    QCOMPARE(catalog.find("toy").specFile, (a / "toy" / "kernel.json").lexically_normal());
}

void TestKernelSpecs::catalogReportsUnknownAndShadowedKernels() {
    QTemporaryDir dir;
    const fs::path root(dir.path().toStdString());
    writeToyKernel(root / "toy");
    writeToyKernel(root / "broken", replaced(kToySpec, R"("default": 4})", R"("default": 48})"));
    writeToyKernel(root / "shadow", replaced(kToySpec, R"("name": "toy")", R"("name": "gemm")"));
    const KernelCatalog catalog({fs::path(TUNESCOPE_KERNELS), root});
    QStringList names = bundledNames();
    names << "toy";
    names.sort();
    QCOMPARE(catalogNames(catalog), names);
    QCOMPARE(catalog.problems().size(), std::size_t(2));
    QCOMPARE(catalog.find("gemm").specFile, fs::path(TUNESCOPE_KERNELS) / "gemm" / "kernel.json");
    const std::string broken = errorOf([&] { catalog.find("broken"); });
    QVERIFY2(broken.find("default 48 is not one of its values.") != std::string::npos, broken.c_str());
    QCOMPARE(QString::fromStdString(errorOf([&] { catalog.find("nope"); })),
             "Unknown kernel \"nope\" (known kernels: " + names.join(", ") + ").");
}

void TestKernelSpecs::parsesProblemSizes() {
    const KernelSpec gemm = KernelCatalog({TUNESCOPE_KERNELS}).find("gemm");
    QCOMPARE(parseProblemSize(gemm, "512,256,128"), ProblemSize({512, 256, 128}));
    QCOMPARE(parseProblemSize(gemm, " 512 , 256,128 "), ProblemSize({512, 256, 128}));
    QCOMPARE(parseProblemSize(gemm, "M=512,K=256"), ProblemSize({512, 1024, 256}));
    QCOMPARE(formatProblemSize(gemm, {67, 45, 33}), std::string("M=67,N=45,K=33"));
    QCOMPARE(parseProblemSize(gemm, formatProblemSize(gemm, {67, 45, 33})), ProblemSize({67, 45, 33}));
}

void TestKernelSpecs::rejectsBadProblemSizes_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("count") << "1024,1024"
                           << "The size \"1024,1024\" has 2 values but kernel gemm takes 3 (M,N,K).";
    QTest::newRow("zero") << "1024,0,5"
                          << "The size \"1024,0,5\" gives N the value 0, which is not positive.";
    QTest::newRow("negative") << "M=-4"
                              << "The size \"M=-4\" gives M the value -4, which is not positive.";
    QTest::newRow("not a number")
        << "1024,abc,5"
        << "The size \"1024,abc,5\" gives N the value \"abc\", which is not a whole number.";
    QTest::newRow("fraction")
        << "1.5,2,3"
        << "The size \"1.5,2,3\" gives M the value \"1.5\", which is not a whole number.";
    QTest::newRow("unknown name")
        << "Q=4"
        << "The size \"Q=4\" names \"Q\", which is not a size of kernel gemm (M,N,K).";
    QTest::newRow("twice") << "M=4,M=5"
                           << "The size \"M=4,M=5\" gives M twice.";
    QTest::newRow("mixed")
        << "M=4,5"
        << "The size \"M=4,5\" mixes named and positional values (\"5\"); write NAME=VALUE for each.";
    QTest::newRow("empty") << ""
                           << "The size \"\" has 1 values but kernel gemm takes 3 (M,N,K).";
}

void TestKernelSpecs::rejectsBadProblemSizes() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const KernelSpec gemm = KernelCatalog({TUNESCOPE_KERNELS}).find("gemm");
    QCOMPARE(QString::fromStdString(errorOf([&] { parseProblemSize(gemm, text.toStdString()); })), expected);
}

void TestKernelSpecs::evaluatesSizeExpressions() {
    const KernelCatalog catalog({TUNESCOPE_KERNELS});
    const KernelSpec& gemm = catalog.find("gemm");
    const ProblemSize size{2, 3, 4};
    QCOMPARE(kernelFlops(gemm, size).value(), 48.0);
    QCOMPARE(kernelBytes(gemm, size).value(), 4.0 * (8 + 12 + 6));
    QCOMPARE(argumentCount(gemm, gemm.arguments[0], size), std::int64_t(8));
    QCOMPARE(argumentCount(gemm, gemm.arguments[2], size), std::int64_t(6));
    const KernelSpec& conv = catalog.find("conv2d");
    const ProblemSize convSize{2, 3, 9, 13, 5, 3, 2};
    QCOMPARE(argumentCount(conv, conv.arguments[2], convSize), std::int64_t(2 * 5 * 7 * 12));
    QCOMPARE(
        errorOf([&] { parseProblemSize(conv, "H=2"); }),
        std::string("At size N=1,C=32,H=2,W=34,K=64,R=3,S=3 argument output of kernel conv2d would have 0 "
                    "elements (N * K * (H - R + 1) * (W - S + 1)), not a positive whole number."));
    const std::string error = errorOf([&] { argumentCount(conv, conv.arguments[2], {1, 1, 2, 2, 1, 3, 3}); });
    QVERIFY2(error.find("not a positive whole number") != std::string::npos, error.c_str());
}

void TestKernelSpecs::bindsProblemSizesIntoConstraints() {
    QTemporaryDir dir;
    const KernelSpec toy = readKernelSpec(writeToyKernel(fs::path(dir.path().toStdString()) / "toy"));
    QCOMPARE(bindProblemSize("MC <= M and 'M' != N_X and Mx < 1e5 and N", toy, {512, 7}),
             std::string("MC <= 512 and 'M' != N_X and Mx < 1e5 and 7"));
    // T <= M: at M = 8 the values 16 and 32 drop out.
    const KernelSpace small(toy, "cpu", {8, 8});
    const KernelSpace large(toy, "cpu", {64, 8});
    QCOMPARE(large.space().validCount(), SearchSpace::Index(6 * 2 * 2 - 2));
    QCOMPARE(small.space().validCount(), SearchSpace::Index(4 * 2 * 2 - 2));
    QCOMPARE(small.constraints().front(), std::string("T <= M"));
    QCOMPARE(small.space().constraints().front(), std::string("T <= 8"));
    QCOMPARE(small.space().dimension(), std::size_t(3));
    QVERIFY(small.defaultIndex().has_value());
    QCOMPARE(KernelSpace(toy, "cpu", {2, 8}).defaultIndex(), std::nullopt); // T = 4 > M
}

void TestKernelSpecs::spaceMatchesDirectEvaluation() {
    // The bound space must hold exactly the configs whose original constraints hold with the sizes looked up.
    const KernelCatalog catalog({TUNESCOPE_KERNELS});
    for (const char* name : {"conv2d", "softmax"}) {
        const KernelSpec& spec = catalog.find(name);
        const KernelVariant& variant = *spec.variant("cpu");
        const ProblemSize size =
            std::string(name) == "conv2d" ? ProblemSize{1, 3, 9, 7, 6, 3, 3} : ProblemSize{3, 20};
        const KernelSpace space(spec, "cpu", size);
        std::vector<Expression> constraints;
        for (const auto& text : variant.constraints)
            constraints.push_back(Expression::parse(text, "constraint"));
        const auto sizes = problemLookup(spec, size);
        SearchSpace::Index expected = 0;
        for (SearchSpace::Index index = 0; index < space.space().productSize(); ++index) {
            const Config config = space.space().config(index);
            const Expression::Lookup lookup = [&](std::string_view n) -> std::optional<Value> {
                for (std::size_t p = 0; p < variant.parameters.size(); ++p)
                    if (variant.parameters[p].name == n)
                        return config[p];
                return sizes(n);
            };
            bool ok = true;
            for (const auto& c : constraints)
                ok = ok && c.test(lookup);
            QCOMPARE(space.space().isValid(index), ok);
            expected += ok ? 1 : 0;
        }
        QVERIFY(expected > 0);
        QCOMPARE(space.space().validCount(), expected);
    }
}

void TestKernelSpecs::unsatisfiableSizeIsOneSentence() {
    const KernelCatalog catalog({TUNESCOPE_KERNELS});
    const std::string message = errorOf([&] {
        KernelSpace(catalog.find("conv2d"), "cpu", {1, 3, 2, 9, 4, 3, 3});
    });
    QVERIFY2(
        message.rfind("Kernel conv2d (cpu) at size N=1,C=3,H=2,W=9,K=4,R=3,S=3: no configuration satisfies "
                      "the constraints",
                      0) == 0,
        message.c_str());
    QCOMPARE(errorOf([&] {
                 KernelSpace(catalog.find("gemm"), "opencl", {1, 1, 1});
             }),
             std::string("Kernel gemm has no opencl variant (it has cpu")
                 .append(catalog.find("gemm").variants.count("cuda") ? ", cuda)." : ")."));
}

void TestKernelSpecs::buildFlagsFollowTheMacroRules() {
    std::vector<Parameter> parameters(4);
    parameters[0] = {"MC", ParameterType::Integer, {std::int64_t(32), std::int64_t(64)}};
    parameters[1] = {"PACK", ParameterType::Bool, {true, false}};
    parameters[2] = {"LOOP_ORDER", ParameterType::String, {std::string("jpi"), std::string("pji")}};
    parameters[3] = {"ALPHA", ParameterType::Real, {0.5, 1.0}};
    const Config config{std::int64_t(64), false, std::string("pji"), 1.0};
    QCOMPARE(toQt(buildFlags(parameters, config)),
             QStringList({"-DMC=64", "-DPACK=0", "-DLOOP_ORDER_pji=1", "-DALPHA=1.0"}));
    QVERIFY(errorOf([&] { buildFlags(parameters, {std::int64_t(64)}); }) != "<no error>");

    const KernelCatalog catalog({TUNESCOPE_KERNELS});
    const KernelSpace gemm(catalog.find("gemm"), "cpu", {1024, 1024, 1024});
    QCOMPARE(toQt(gemm.buildFlags(*gemm.defaultIndex())),
             QStringList({"-DMC=64", "-DNC=1024", "-DKC=128", "-DMR=4", "-DNR=16", "-DVEC=8", "-DUNROLL=1",
                          "-DPACK=1", "-DLOOP_ORDER_jpi=1", "-DTHREADS=1"}));
}

// Compiles each bundled kernel's reference, its default config and a few sampled configs with the host
// compiler (warning-free with -Wall -Wextra), and checks every one against the reference at a small,
// edge-heavy size.
void TestKernelSpecs::bundledKernelsCompileAndMatchReference() {
    QTemporaryDir dir;
    const fs::path out(dir.path().toStdString());
    const KernelCatalog catalog({TUNESCOPE_KERNELS});
    const std::map<std::string, ProblemSize> sizes{
        {"gemm", {97, 1030, 130}}, {"conv2d", {2, 3, 9, 13, 5, 3, 2}}, {"softmax", {5, 37}}};
    constexpr std::size_t kSampled = 3;

    struct Build {
        const KernelSpec* spec;
        ProblemSize size;
        fs::path library;
        QStringList arguments;
        std::string what;
        std::unique_ptr<QProcess> process;
    };
    std::vector<Build> builds;
    std::map<std::string, fs::path> references;
    for (const auto& [name, size] : sizes) {
        const KernelSpec& spec = catalog.find(name);
        const KernelSpace space(spec, "cpu", size);
        QVERIFY2(space.defaultIndex(), name.c_str());
        std::mt19937_64 rng(11);
        std::vector<SearchSpace::Index> configs{*space.defaultIndex()};
        for (const auto index : space.space().sample(kSampled, SpaceMode::Constrained, rng))
            configs.push_back(index);

        references[name] = out / (name + "_reference.so");
        Build reference{&spec, size, references[name], {}, name + " reference", nullptr};
        reference.arguments << "-O2"
                            << "-fPIC"
                            << "-shared"
                            << "-Wall"
                            << "-Wextra"
                            << "-o" << QString::fromStdString(references[name].string())
                            << QString::fromStdString(spec.reference.source.string())
                            << toQt(spec.reference.flags);
        builds.push_back(std::move(reference));
        for (std::size_t i = 0; i < configs.size(); ++i) {
            const fs::path library = out / (name + "_" + std::to_string(i) + ".so");
            Build build{&spec, size, library, {}, name + " [" + space.space().key(configs[i]) + "]", nullptr};
            build.arguments << "-std=c++20"
                            << "-O3"
                            << "-march=native"
                            << "-fPIC"
                            << "-shared"
                            << "-Wall"
                            << "-Wextra" << toQt(space.variant().flags) << toQt(space.buildFlags(configs[i]))
                            << "-o" << QString::fromStdString(library.string())
                            << QString::fromStdString(space.variant().source.string());
            builds.push_back(std::move(build));
        }
    }

    // Two compilers at a time.
    std::size_t next = 0;
    std::vector<Build*> running;
    auto finish = [&](Build* build) {
        QVERIFY2(build->process->waitForFinished(120000), build->what.c_str());
        const QString errors = QString::fromLocal8Bit(build->process->readAllStandardError());
        QVERIFY2(build->process->exitStatus() == QProcess::NormalExit && build->process->exitCode() == 0,
                 qPrintable(QString::fromStdString(build->what) + ": " + errors));
        QVERIFY2(errors.trimmed().isEmpty(), qPrintable(QString::fromStdString(build->what) + ": " + errors));
    };
    while (next < builds.size() || !running.empty()) {
        while (next < builds.size() && running.size() < 2) {
            Build& build = builds[next++];
            build.process = std::make_unique<QProcess>();
            build.process->start("c++", build.arguments);
            QVERIFY2(build.process->waitForStarted(), "cannot start c++");
            running.push_back(&build);
        }
        finish(running.front());
        running.erase(running.begin());
    }

    for (const auto& build : builds) {
        if (build.library == references[build.spec->name])
            continue;
        const std::string problem =
            compareWithReference(*build.spec, build.size, build.library, references[build.spec->name]);
        QVERIFY2(problem.empty(), (build.what + ": " + problem).c_str());
    }
}

QTEST_APPLESS_MAIN(TestKernelSpecs)
#include "TestKernelSpecs.moc"
