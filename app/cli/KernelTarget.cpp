#include "KernelTarget.h"

#include "CliSupport.h"

#include "hardware/StaticEstimateFit.h"
#include "kernels/KernelSizes.h"
#include "trial/BestSoFar.h"

#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace ts::cli {

void addKernelOptions(CLI::App& cmd, KernelTuneOptions& o, std::vector<std::string>& sizes,
                      std::string& backend) {
    cmd.add_option("--kernel", o.kernel,
                   "Tune a kernel of the catalog for real (see `kernels`), instead of --dataset");
    cmd.add_option("--kernel-spec", o.kernelSpec, "Tune the kernel of this kernel.json file for real");
    cmd.add_option("--size", sizes,
                   "Problem size: all values (1024,1024,1024) or some by name (M=512); repeat it to tune "
                   "several sizes as one workload sharing the budget");
    cmd.add_option("--backend", backend,
                   "Where kernels are measured: cpu (the default), or cuda (a local NVIDIA GPU)");
    addMeasurementOptions(cmd, o);
}

void addMeasurementOptions(CLI::App& cmd, KernelTuneOptions& o) {
    cmd.add_option("--timeout", o.timeoutS, "Seconds one config may take to verify and measure")
        ->capture_default_str();
    cmd.add_option("--repeat", o.timing.repeat, "Timed samples per config")->capture_default_str();
    cmd.add_option("--min-repeat-ms", o.timing.minRepeatMs,
                   "Calls per sample grow until a sample lasts this long")
        ->capture_default_str();
    cmd.add_option("--warmup-ms", o.timing.warmupMs, "Warm-up time per config before timing")
        ->capture_default_str();
    cmd.add_flag("--flush,!--no-flush", o.timing.flush, "Evict the caches before every sample (default: on)");
    cmd.add_option("--cache-dir", o.cacheDir,
                   "Build cache (default: $TUNESCOPE_CACHE_DIR or $XDG_CACHE_HOME/tunescope/builds)");
}

void KernelTarget::printResult(const TuningSession& session, std::int64_t sessionId,
                               const std::string& strategy, const std::string& stopReason,
                               const std::vector<std::string>& restrictions, bool json) const {
    const Trial* best = session.best();
    const KernelSpec& spec = m_target.spec();
    const ProblemSize& size = m_target.size();
    const std::string& backend = m_target.backendName();
    const CpuBackend* cpu = m_target.cpuBackend();
    std::map<std::string, int> statuses;
    int noisy = 0;
    for (const Trial& t : session.trials()) {
        ++statuses[toString(t.measurement.status)];
        auto it = t.measurement.metrics.find("noisy");
        noisy += it != t.measurement.metrics.end() && it->second > 0 ? 1 : 0;
    }
    std::vector<std::pair<std::int64_t, double>> convergence; // (evaluation from 1, best ms)
    const BestSoFar bestSoFar = BestSoFar::of(session.trials());
    for (const BestSoFar::Improvement& step : bestSoFar.improvements())
        convergence.emplace_back(session.trials()[step.position].number + 1, step.objective);
    BuildCacheStats cache = cpu ? cpu->buildStats() : BuildCacheStats{};
    const StaticEstimateFit staticFit = fitStaticEstimates(session.trials()); // cuda sessions only
    auto metric = [](const Trial& t, const char* name) {
        auto it = t.measurement.metrics.find(name);
        return it == t.measurement.metrics.end() ? 0.0 : it->second;
    };
    if (json) {
        nlohmann::json out{{"session", sessionId},
                           {"kernel", spec.name},
                           {"size", formatProblemSize(spec, size)},
                           {"backend", backend},
                           {"device", m_target.backend().deviceFingerprint()},
                           {"strategy", strategy},
                           {"evaluations", session.trials().size()},
                           {"stop_reason", stopReason},
                           {"statuses", statuses},
                           {"noisy", noisy}};
        if (cpu)
            out["build_cache"] = {{"hits", cache.hits},
                                  {"misses", cache.misses},
                                  {"hit_rate", cache.hitRate()},
                                  {"saved_s", cache.savedMs / 1000.0},
                                  {"compile_s", cache.compileMs / 1000.0},
                                  {"directory", cpu->buildCache().directory().string()}};
        if (best)
            out["best"] = {{"config", m_target.space().key(best->index)},
                           {"objective_ms", best->measurement.objective},
                           {"gflops", metric(*best, "gflops")},
                           {"cv", metric(*best, "cv")},
                           {"noisy", metric(*best, "noisy") > 0},
                           {"samples_ms", best->measurement.samples},
                           {"evaluation", best->number + 1}};
        nlohmann::json curve = nlohmann::json::array();
        for (auto [evaluation, value] : convergence)
            curve.push_back({{"evaluation", evaluation}, {"best_ms", value}});
        out["convergence"] = curve;
        out["learned_restrictions"] = restrictions;
        if (staticFit.trials >= 2)
            out["static_model"] = {
                {"trials", staticFit.trials}, {"spearman", staticFit.spearman}, {"scale", staticFit.scale}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("session {} ({}, {} at {} on {}): {} evaluations, stopped: {}\n", sessionId, strategy,
               spec.name, formatProblemSize(spec, size), m_target.backend().deviceFingerprint(),
               session.trials().size(), stopReason);
    std::string counts;
    for (const auto& [status, count] : statuses)
        counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", count, status);
    fmt::print("statuses: {}; {} noisy (cv > {:.0f} %)\n", counts, noisy, CpuBackend::kNoisyCv * 100);
    if (cpu)
        fmt::print(
            "build cache: {} hits, {} misses ({:.0f} % hit rate), {:.1f} s of compiling saved, {:.1f} s "
            "spent ({})\n",
            cache.hits, cache.misses, cache.hitRate() * 100, cache.savedMs / 1000.0, cache.compileMs / 1000.0,
            cpu->buildCache().directory().string());
    printRestrictions(restrictions);
    if (staticFit.trials >= 2)
        fmt::print(
            "static cost model (occupancy and roofline, nothing measured): Spearman {:.2f} against the "
            "measured times of {} Ok trials\n",
            staticFit.spearman, staticFit.trials);
    if (!best) {
        fmt::print("no valid config found\n");
        return;
    }
    fmt::print("best {:.6g} ms ({:.2f} GFLOP/s, cv {:.1f} %{}) at evaluation {}: {}\n",
               best->measurement.objective, metric(*best, "gflops"), metric(*best, "cv") * 100,
               metric(*best, "noisy") > 0 ? ", noisy" : "", best->number + 1,
               describeConfig(m_target.space(), best->index));
    fmt::print("convergence (evaluation: best ms):");
    for (auto [evaluation, value] : convergence)
        fmt::print(" {}:{:.5g}", evaluation, value);
    fmt::print("\n");
}

} // namespace ts::cli
