// Tuned CPU GEMM against OpenBLAS, one thread, in one run; then the build cache on a second tuning run.
// Usage: bench_cpu_gemm [BUDGET=60] [ROUNDS=5] [SIZE=1024]
//
// 1. Tunes (a snapshot of) kernels/gemm at SIZE^3 with THREADS == 1 using the "default" strategy (a fresh,
// empty build
//    cache) for BUDGET evaluations.
// 2. Measures, interleaved for ROUNDS rounds, the best tuned config, the kernel's default config and the
//    kernel's reference (OpenBLAS cblas_sgemm, OPENBLAS_NUM_THREADS=1) with the same worker, inputs,
//    verification and timing, and prints the median GFLOP/s of each and their ratios.
// 3. Tunes again with the same seed over the same cache and prints the hit rate and the compile time saved.
#include "backends/CpuBackend.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpecReader.h"
#include "session/TuningSession.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"
#include "util/Statistics.h"

#include "ScratchFolder.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

using namespace ts;

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct TuneRun {
    std::optional<Config> best;
    double bestMs = 0.0;
    double wallS = 0.0;
    BuildCacheStats cache;
    std::map<std::string, int> statuses;
    std::size_t evaluations = 0;
};

CpuBackendSettings settings(const std::filesystem::path& cache) {
    CpuBackendSettings s;
    s.worker = TUNESCOPE_WORKER;
    s.cacheDirectory = cache;
    s.timeoutS = 30.0;
    s.environment = {"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1"};
    return s; // timing: warm-up 20 ms, 7 samples of >= 20 ms, caches flushed before each sample
}

TuneRun tune(const KernelSpec& spec, const KernelSpace& kernelSpace, const SearchSpace& space,
             const std::filesystem::path& cache, std::int64_t budget) {
    const auto& registry = StrategyRegistry::builtin();
    CpuBackend backend(spec, kernelSpace, settings(cache), &space);
    auto strategy = registry.create(StrategyRegistry::kDefaultAlias);
    strategy->reset(
        {&space, SpaceMode::Constrained, 0, registry.options(StrategyRegistry::kDefaultAlias, {})});
    SessionSettings s;
    s.stop.maxEvaluations = budget;
    TuningSession session(space, backend, *strategy, s);
    TuneRun run;
    double start = now();
    session.run();
    run.wallS = now() - start;
    run.cache = backend.buildStats();
    run.evaluations = session.trials().size();
    for (const Trial& t : session.trials())
        ++run.statuses[toString(t.measurement.status)];
    if (const Trial* best = session.best()) {
        run.best = best->config;
        run.bestMs = best->measurement.objective;
    }
    return run;
}

std::string describe(const SearchSpace& space, const Config& config) {
    std::string text;
    for (std::size_t i = 0; i < config.size(); ++i)
        text += fmt::format("{}{}={}", i ? ", " : "", space.parameters()[i].name, toString(config[i]));
    return text;
}

void printRun(const char* label, const TuneRun& run) {
    std::string statuses;
    for (const auto& [status, count] : run.statuses)
        statuses += fmt::format("{}{} {}", statuses.empty() ? "" : ", ", count, status);
    fmt::print("{}: {} evaluations in {:.1f} s ({}); build cache {} hits / {} misses = {:.0f} % hit rate, "
               "{:.1f} s compiling, {:.1f} s of compiling saved\n",
               label, run.evaluations, run.wallS, statuses, run.cache.hits, run.cache.misses,
               run.cache.hitRate() * 100, run.cache.compileMs / 1000, run.cache.savedMs / 1000);
    std::fflush(stdout); // progress shows when the output is redirected
}

} // namespace

int main(int argc, char** argv) {
    try {
        const std::int64_t budget = argc > 1 ? std::atoll(argv[1]) : 60;
        const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
        const std::int64_t n = argc > 3 ? std::atoll(argv[3]) : 1024;
        ScratchFolder scratch(std::filesystem::temp_directory_path() /
                              fmt::format("tunescope-bench-cpu-gemm-{}", ::getpid()));
        // A snapshot of the kernel folder: both tuning runs and the comparison build the same source even
        // when kernels/gemm is edited meanwhile.
        const auto kernelFolder =
            KernelCatalog({std::filesystem::path(TUNESCOPE_KERNELS)}).find("gemm").specFile.parent_path();
        std::filesystem::copy(kernelFolder, scratch.path() / "gemm",
                              std::filesystem::copy_options::recursive);
        const KernelSpec spec = readKernelSpec(scratch.path() / "gemm" / "kernel.json");
        const std::filesystem::path cache = scratch.path() / "cache";
        const ProblemSize size{n, n, n};
        KernelSpace kernelSpace(spec, "cpu", size);
        std::vector<std::string> constraints = kernelSpace.space().constraints();
        constraints.push_back("THREADS == 1");
        SearchSpace space(kernelSpace.variant().parameters, constraints);
        const double flops = *kernelFlops(spec, size);
        fmt::print("gemm {}x{}x{} fp32, one thread, {} of {} configs valid with THREADS == 1, budget {}, "
                   "strategy {}, fresh build cache {}\n",
                   n, n, n, space.validCount(), space.productSize(), budget, StrategyRegistry::kDefaultAlias,
                   cache.string());

        TuneRun first = tune(spec, kernelSpace, space, cache, budget);
        printRun("tuning run 1", first);
        if (!first.best) {
            fmt::print("no valid config found\n");
            return 1;
        }
        fmt::print("best tuned: {:.4g} ms during tuning: {}\n", first.bestMs, describe(space, *first.best));

        CpuBackend backend(spec, kernelSpace, settings(cache), &space);
        fmt::print("device: {}; worker pinned to core {}\n", backend.deviceFingerprint(),
                   backend.cpuPlan().worker ? std::to_string(*backend.cpuPlan().worker) : "none");
        Config defaults = kernelSpace.variant().defaults;
        if (auto index = space.indexOf(defaults); !index || !space.isValid(*index)) {
            fmt::print("the kernel's default config is not valid at this size; comparing with the first "
                       "valid one\n");
            defaults = space.config(space.validIndices().front());
        }
        std::vector<double> tuned, fallback, blas;
        for (int r = 0; r < rounds; ++r) {
            auto measured = backend.measure(std::vector<Config>{*first.best, defaults});
            Measurement reference =
                backend.measureSource(spec.reference.source, spec.reference.flags, "tunescope_reference");
            for (const Measurement* m : {&measured[0], &measured[1], &reference})
                if (m->status != MeasureStatus::Ok)
                    throw Error(
                        fmt::format("A comparison measurement failed: {} {}", toString(m->status), m->log));
            tuned.push_back(flops / (measured[0].objective * 1e6));
            fallback.push_back(flops / (measured[1].objective * 1e6));
            blas.push_back(flops / (reference.objective * 1e6));
            fmt::print("round {}: tuned {:.2f}, default {:.2f}, OpenBLAS {:.2f} GFLOP/s (cv {:.1f} / {:.1f} "
                       "/ {:.1f} %)\n",
                       r + 1, tuned.back(), fallback.back(), blas.back(), measured[0].metrics["cv"] * 100,
                       measured[1].metrics["cv"] * 100, reference.metrics["cv"] * 100);
        }
        const double t = summarize(tuned).median, d = summarize(fallback).median, b = summarize(blas).median;
        fmt::print("median over {} rounds (each the median of 7 samples), GFLOP/s:\n", rounds);
        fmt::print("  tuned   {:8.2f}  {}\n", t, describe(space, *first.best));
        fmt::print("  default {:8.2f}  {}\n", d, describe(space, defaults));
        fmt::print("  OpenBLAS sgemm (1 thread) {:8.2f}\n", b);
        fmt::print("  tuned / OpenBLAS = {:.3f} (target >= 0.8); tuned / default = {:.2f}x\n", t / b, t / d);

        TuneRun second = tune(spec, kernelSpace, space, cache, budget);
        printRun("tuning run 2 (same seed, same cache)", second);
        fmt::print("second run: {:.1f} s instead of {:.1f} s ({:.1f} s saved in wall time)\n", second.wallS,
                   first.wallS, first.wallS - second.wallS);
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "bench_cpu_gemm: {}\n", e.what());
        return 1;
    }
}
