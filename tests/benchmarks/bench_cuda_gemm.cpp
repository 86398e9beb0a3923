// GPU check of the CUDA backend (run by scripts/gpu-check on a machine with an NVIDIA GPU): tunes gemm fp32
// with the default strategy and, in the same run and through the same worker and timing, measures cuBLAS
// SGEMM on the same inputs. Prints the tuned-vs-cuBLAS throughput ratio (target >= 0.8), the tuned-vs-default
// speedup, the median coefficient of variation of the measurements and how well the static cost model (no
// measurement) ranks the configs the session measured (Spearman). Exits 2 without a GPU.
//
//   bench_cuda_gemm [--size 4096] [--budget 100] [--strategy default] [--seed 1] [--time-limit 420]
//                   [--trials FILE]   (one CSV row per trial: config, status, time, CV, static estimate)
#ifdef TUNESCOPE_WITH_CUDA
#include "cuda/CudaBackend.h"
#include "cuda/CudaDevices.h"
#include "hardware/StaticEstimateFit.h"
#include "kernels/KernelCatalog.h"
#include "session/TuningSession.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

using namespace ts;

namespace {

struct Options {
    std::int64_t size = 4096;
    std::int64_t budget = 100;
    std::string strategy = "default";
    std::uint64_t seed = 1;
    double timeLimitS = 420.0;
    std::string trialsFile;
};

Options parse(int argc, char** argv) {
    Options o;
    if (argc % 2 == 0)
        throw Error(fmt::format("The option {} needs a value.", argv[argc - 1]));
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i], value = argv[i + 1];
        if (flag == "--size")
            o.size = std::stoll(value);
        else if (flag == "--budget")
            o.budget = std::stoll(value);
        else if (flag == "--strategy")
            o.strategy = value;
        else if (flag == "--seed")
            o.seed = std::stoull(value);
        else if (flag == "--time-limit")
            o.timeLimitS = std::stod(value);
        else if (flag == "--trials")
            o.trialsFile = value;
        else
            throw Error(fmt::format(
                "Unknown option {} (known: --size, --budget, --strategy, --seed, --time-limit, --trials).",
                flag));
    }
    return o;
}

double tflops(double flops, double ms) {
    return ms > 0 ? flops / (ms * 1e9) : 0.0;
}

void writeTrials(const std::string& file, const SearchSpace& space, const std::vector<Trial>& trials) {
    std::ofstream out(file);
    if (!out)
        throw Error(fmt::format("Cannot write the trials file {}.", file));
    out << "trial,config,status,ms,cv,static_ms\n";
    for (std::size_t i = 0; i < trials.size(); ++i) {
        const Measurement& m = trials[i].measurement;
        const auto cv = m.metrics.find("cv");
        const auto estimate = m.metrics.find(kStaticEstimateMetric);
        out << fmt::format("{},\"{}\",{},{},{},{}\n", i + 1, space.key(trials[i].index), toString(m.status),
                           m.status == MeasureStatus::Ok ? m.objective : 0.0,
                           cv == m.metrics.end() ? 0.0 : cv->second,
                           estimate == m.metrics.end() ? 0.0 : estimate->second);
    }
}

int run(const Options& o) {
    const CudaDevices devices = CudaDevices::query();
    if (devices.empty()) {
        fmt::print("bench_cuda_gemm: no CUDA device ({}); nothing measured.\n", devices.unavailableReason());
        return 2;
    }
    const KernelCatalog catalog(std::vector<std::filesystem::path>{TUNESCOPE_KERNELS});
    const KernelSpec& spec = catalog.find("gemm");
    const KernelSpace space(spec, "cuda", {o.size, o.size, o.size});
    CudaBackendSettings settings;
#ifdef TUNESCOPE_WORKER
    settings.worker = TUNESCOPE_WORKER;
#endif
    settings.timeoutS = 30.0;
    settings.timing.repeat = 7;
    settings.timing.warmupMs = 50;
    settings.timing.minRepeatMs = 20;
    CudaBackend backend(spec, space, settings);
    const double flops = 2.0 * double(o.size) * double(o.size) * double(o.size);
    fmt::print("device   {}\n", backend.deviceFingerprint());
    fmt::print("problem  gemm fp32 {}^3, {} valid configs, strategy {}, budget {}\n", o.size,
               space.space().validCount(), o.strategy, o.budget);

    const auto start = std::chrono::steady_clock::now();
    const Measurement cublasBefore = backend.measureCublasSgemm();
    if (cublasBefore.status != MeasureStatus::Ok)
        throw Error("cuBLAS SGEMM failed: " + cublasBefore.log);
    const Config defaultConfig = space.variant().defaults;
    const Measurement defaults = backend.measure(std::vector<Config>{defaultConfig}).front();
    if (defaults.status != MeasureStatus::Ok)
        throw Error(
            fmt::format("The default gemm config failed ({}): {}", toString(defaults.status), defaults.log));

    const StrategyRegistry& registry = StrategyRegistry::builtin();
    auto strategy = registry.create(o.strategy);
    strategy->reset({&space.space(), SpaceMode::Constrained, o.seed, registry.options(o.strategy, {})});
    SessionSettings sessionSettings;
    sessionSettings.stop.maxEvaluations = o.budget;
    sessionSettings.stop.maxSeconds = o.timeLimitS;
    TuningSession session(space.space(), backend, *strategy, sessionSettings);
    session.run();
    const Measurement cublasAfter = backend.measureCublasSgemm();

    std::vector<double> cvs;
    std::map<std::string, int> statuses;
    for (const Trial& t : session.trials()) {
        ++statuses[toString(t.measurement.status)];
        if (t.measurement.status == MeasureStatus::Ok && t.measurement.metrics.count("cv"))
            cvs.push_back(t.measurement.metrics.at("cv"));
    }
    const Trial* best = session.best();
    if (!best)
        throw Error("No gemm config measured correctly.");
    const double cublasMs = std::min(cublasBefore.objective, cublasAfter.objective);
    const double ratio = cublasMs / best->measurement.objective;
    std::sort(cvs.begin(), cvs.end());
    const double medianCv = cvs.empty() ? 0.0 : cvs[cvs.size() / 2];
    std::string statusText;
    for (const auto& [name, count] : statuses)
        statusText += fmt::format("{}{} {}", statusText.empty() ? "" : ", ", count, name);

    fmt::print("evaluated {} configs ({}), {} pruned before measuring\n", session.trials().size(), statusText,
               backend.pruned());
    fmt::print("default  {:.4f} ms  {:.2f} TFLOP/s  [{}]\n", defaults.objective,
               tflops(flops, defaults.objective), space.space().key(*space.defaultIndex()));
    fmt::print("tuned    {:.4f} ms  {:.2f} TFLOP/s  [{}]\n", best->measurement.objective,
               tflops(flops, best->measurement.objective), space.space().key(best->index));
    fmt::print("cuBLAS   {:.4f} ms  {:.2f} TFLOP/s  (before {:.4f} ms, after {:.4f} ms)\n", cublasMs,
               tflops(flops, cublasMs), cublasBefore.objective, cublasAfter.objective);
    fmt::print("ratio tuned / cuBLAS throughput  {:.3f}  (target >= 0.8: {})\n", ratio,
               ratio >= 0.8 ? "met" : "NOT met");
    fmt::print("speedup tuned vs default         {:.2f}x\n",
               defaults.objective / best->measurement.objective);
    fmt::print("median CV of the measurements    {:.4f}\n", medianCv);
    const StaticEstimateFit fit = fitStaticEstimates(session.trials());
    fmt::print("static cost model Spearman       {:.3f}  (its estimates vs the measured times of the {} Ok "
               "trials)\n",
               fit.spearman, fit.trials);
    if (!o.trialsFile.empty())
        writeTrials(o.trialsFile, space.space(), session.trials());
    fmt::print("wall time                        {:.1f} s\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    try {
        return run(parse(argc, argv));
    } catch (const std::exception& e) {
        fmt::print(stderr, "bench_cuda_gemm: {}\n", e.what());
        return 1;
    }
}

#else

#include <cstdio>

int main() {
    std::printf("bench_cuda_gemm: this build has no CUDA backend; nothing measured.\n");
    return 2;
}

#endif
