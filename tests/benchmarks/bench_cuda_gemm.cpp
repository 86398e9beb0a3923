// GPU check of the CUDA backend (run by scripts/gpu-check on a machine with an NVIDIA GPU): tunes a GEMM
// kernel (gemm, gemm_async: fp32; gemm_tc: fp16 inputs) with the default strategy, once per seed, and in the
// same run, through the same worker and timing, measures the kernel's GPU reference (reference.gpu: cuBLAS
// SGEMM, or cublasGemmEx on fp16 inputs with fp32 accumulation and output) on the same inputs, before and
// after each seed. Prints per seed and as the median over seeds the tuned-vs-cuBLAS throughput ratio
// (--target, default 0.9), the tuned-vs-default speedup, the median coefficient of variation of the
// measurements and how well the static cost model (no measurement) ranks the configs measured (Spearman).
// Exits 0 when the median ratio meets the target, 3 when it does not, 2 without a GPU, 1 on an error.
//
//   bench_cuda_gemm [--kernel gemm_async] [--size 4096] [--budget 100] [--seeds 3] [--strategy default]
//                   [--target 0.9] [--time-limit 420] [--trials FILE]
//   --trials: one CSV row per trial of every seed (seed, config, status, time, CV, static estimate)
//   --time-limit: seconds for all seeds together, shared out evenly
//   --db FILE: the records database the seeds' sessions are recorded in, as `tune` records them (default: a
//              temporary file); scripts/gpu-check adds its dataset's sample to the same file
#ifdef TUNESCOPE_WITH_CUDA
#include "cuda/CudaBackend.h"
#include "cuda/CudaDevices.h"
#include "hardware/StaticEstimateFit.h"
#include "kernels/KernelCatalog.h"
#include "session/KernelSessionTarget.h"
#include "session/PreparedSession.h"
#include "session/SessionPlan.h"
#include "store/RecordStore.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <unistd.h>

using namespace ts;

namespace {

struct Options {
    std::string kernel = "gemm_async";
    std::int64_t size = 4096;
    std::int64_t budget = 100;
    int seeds = 3;
    std::string strategy = "default";
    double target = 0.9;
    double timeLimitS = 420.0;
    std::string trialsFile;
    std::string db;
};

Options parse(int argc, char** argv) {
    Options o;
    if (argc % 2 == 0)
        throw Error(fmt::format("The option {} needs a value.", argv[argc - 1]));
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i], value = argv[i + 1];
        if (flag == "--kernel")
            o.kernel = value;
        else if (flag == "--size")
            o.size = std::stoll(value);
        else if (flag == "--budget")
            o.budget = std::stoll(value);
        else if (flag == "--seeds")
            o.seeds = std::stoi(value);
        else if (flag == "--strategy")
            o.strategy = value;
        else if (flag == "--target")
            o.target = std::stod(value);
        else if (flag == "--time-limit")
            o.timeLimitS = std::stod(value);
        else if (flag == "--trials")
            o.trialsFile = value;
        else if (flag == "--db")
            o.db = value;
        else
            throw Error(
                fmt::format("Unknown option {} (known: --kernel, --size, --budget, --seeds, --strategy, "
                            "--target, --time-limit, --trials, --db).",
                            flag));
    }
    if (o.seeds < 1 || o.budget < 1 || o.size < 16)
        throw Error("--seeds and --budget must be at least 1 and --size at least 16.");
    return o;
}

double tflops(double flops, double ms) {
    return ms > 0 ? flops / (ms * 1e9) : 0.0;
}

double median(std::vector<double> values) {
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

struct SeedResult {
    std::uint64_t seed = 0;
    std::vector<Trial> trials;
    std::optional<Trial> best;
    double referenceMs = 0.0;
};

void writeTrials(const std::string& file, const SearchSpace& space, const std::vector<SeedResult>& seeds) {
    std::ofstream out(file);
    if (!out)
        throw Error(fmt::format("Cannot write the trials file {}.", file));
    out << "seed,trial,config,status,ms,cv,static_ms\n";
    for (const SeedResult& seed : seeds)
        for (std::size_t i = 0; i < seed.trials.size(); ++i) {
            const Measurement& m = seed.trials[i].measurement;
            const auto cv = m.metrics.find("cv");
            const auto estimate = m.metrics.find(kStaticEstimateMetric);
            out << fmt::format("{},{},\"{}\",{},{},{},{}\n", seed.seed, i + 1,
                               space.key(seed.trials[i].index), toString(m.status),
                               m.status == MeasureStatus::Ok ? m.objective : 0.0,
                               cv == m.metrics.end() ? 0.0 : cv->second,
                               estimate == m.metrics.end() ? 0.0 : estimate->second);
        }
}

Measurement reference(CudaBackend& backend) {
    const Measurement m = backend.measureGpuReference();
    if (m.status != MeasureStatus::Ok)
        throw Error(fmt::format("cuBLAS failed ({}): {}", toString(m.status), m.log));
    return m;
}

// A session of the CLI's `tune --kernel K --backend cuda` (constrained space), recorded in the store.
SessionPlan planOf(const Options& o, std::uint64_t seed) {
    SessionPlan plan;
    plan.backend = "cuda";
    plan.kernel.kernel = o.kernel;
    plan.kernel.size = fmt::format("{0},{0},{0}", o.size);
    plan.kernel.timeoutS = 30.0;
    plan.kernel.timing.repeat = 7;
    plan.kernel.timing.warmupMs = 50;
    plan.kernel.timing.minRepeatMs = 20;
    plan.strategy = o.strategy;
    plan.seed = seed;
    plan.budget = o.budget;
    plan.timeLimitS = o.timeLimitS / o.seeds;
    plan.mode = SpaceMode::Constrained;
    return plan;
}

int run(const Options& o) {
    const CudaDevices devices = CudaDevices::query();
    if (devices.empty()) {
        fmt::print("bench_cuda_gemm: no CUDA device ({}); nothing measured.\n", devices.unavailableReason());
        return 2;
    }
#ifdef TUNESCOPE_WORKER
    ::setenv("TUNESCOPE_WORKER", TUNESCOPE_WORKER, 0);
#endif
    const KernelSpec spec = KernelCatalog().find(o.kernel);
    if (spec.reference.gpu.empty())
        throw Error(
            fmt::format("Kernel {} names no GPU reference (reference.gpu) to compare with.", o.kernel));
    const std::string vendor = spec.reference.gpu == "cublas_sgemm" ? "cuBLAS SGEMM" : "cuBLAS GemmEx fp16";
    const double flops = 2.0 * double(o.size) * double(o.size) * double(o.size);
    const std::filesystem::path db = o.db.empty() ? std::filesystem::temp_directory_path() /
                                                        fmt::format("bench_cuda_gemm_{}.db", ::getpid())
                                                  : std::filesystem::path(o.db);
    RecordStore store(db);
    const auto start = std::chrono::steady_clock::now();

    std::vector<SeedResult> seeds;
    std::vector<double> ratios, cvs;
    std::map<std::string, int> statuses;
    std::optional<Measurement> defaults;
    std::string defaultKey;
    std::unique_ptr<SearchSpace> space;
    for (int s = 0; s < o.seeds; ++s) {
        SeedResult result;
        result.seed = std::uint64_t(s + 1);
        auto session = PreparedSession::create(planOf(o, result.seed), store);
        const std::int64_t id = session->open();
        auto* backend = dynamic_cast<CudaBackend*>(&session->backend());
        if (!backend)
            throw Error("The cuda session's backend is not the CUDA backend.");
        const KernelSessionTarget& target = *session->kernelTarget();
        if (s == 0) {
            space = std::make_unique<SearchSpace>(session->space());
            fmt::print("device   {}\n", backend->deviceFingerprint());
            fmt::print("problem  {} {}^3, {} valid configs, strategy {}, budget {}, {} seeds; baseline {}; "
                       "records {}\n",
                       o.kernel, o.size, space->validCount(), o.strategy, o.budget, o.seeds, vendor,
                       db.string());
            const Config config = target.kernelSpace().variant().defaults;
            defaults = backend->measure(std::vector<Config>{config}).front();
            if (defaults->status != MeasureStatus::Ok)
                throw Error(fmt::format("The default {} config failed ({}): {}", o.kernel,
                                        toString(defaults->status), defaults->log));
            defaultKey = space->key(*target.kernelSpace().defaultIndex());
        }
        const Measurement before = reference(*backend);
        session->run();
        const Measurement after = reference(*backend);
        result.trials = session->session().trials();
        result.referenceMs = std::min(before.objective, after.objective);
        for (const Trial& t : result.trials) {
            ++statuses[toString(t.measurement.status)];
            if (t.measurement.status == MeasureStatus::Ok && t.measurement.metrics.count("cv"))
                cvs.push_back(t.measurement.metrics.at("cv"));
        }
        if (const Trial* best = session->session().best()) {
            result.best = *best;
            const double ratio = result.referenceMs / best->measurement.objective;
            ratios.push_back(ratio);
            fmt::print(
                "seed {}  session {}  {} evaluations  tuned {:.4f} ms ({:.2f} TFLOP/s) [{}]  {} {:.4f} ms "
                "(before {:.4f}, after {:.4f})  ratio {:.3f}\n",
                result.seed, id, result.trials.size(), best->measurement.objective,
                tflops(flops, best->measurement.objective), space->key(best->index), vendor,
                result.referenceMs, before.objective, after.objective, ratio);
        } else {
            fmt::print("seed {}  session {}  {} evaluations, none measured correctly\n", result.seed, id,
                       result.trials.size());
        }
        seeds.push_back(std::move(result));
    }
    if (ratios.empty())
        throw Error(fmt::format("No {} config measured correctly in any seed.", o.kernel));

    std::string statusText;
    for (const auto& [name, count] : statuses)
        statusText += fmt::format("{}{} {}", statusText.empty() ? "" : ", ", count, name);
    std::vector<Trial> all;
    const Trial* best = nullptr;
    for (const SeedResult& seed : seeds) {
        all.insert(all.end(), seed.trials.begin(), seed.trials.end());
        if (seed.best && (!best || seed.best->measurement.objective < best->measurement.objective))
            best = &*seed.best;
    }
    const double ratio = median(ratios);
    fmt::print("evaluated {} configs over {} seeds ({})\n", all.size(), seeds.size(), statusText);
    fmt::print("default  {:.4f} ms  {:.2f} TFLOP/s  [{}]\n", defaults->objective,
               tflops(flops, defaults->objective), defaultKey);
    fmt::print("best     {:.4f} ms  {:.2f} TFLOP/s  [{}]\n", best->measurement.objective,
               tflops(flops, best->measurement.objective), space->key(best->index));
    fmt::print("ratio tuned / {} throughput, median of {} seeds  {:.3f}  (target >= {}: {})\n", vendor,
               ratios.size(), ratio, o.target, ratio >= o.target ? "met" : "NOT met");
    fmt::print("speedup best vs default          {:.2f}x\n",
               defaults->objective / best->measurement.objective);
    fmt::print("median CV of the measurements    {:.4f}\n", median(cvs));
    const StaticEstimateFit fit = fitStaticEstimates(all);
    fmt::print("static cost model Spearman       {:.3f}  (its estimates vs the measured times of the {} Ok "
               "trials)\n",
               fit.spearman, fit.trials);
    if (!o.trialsFile.empty())
        writeTrials(o.trialsFile, *space, seeds);
    fmt::print("wall time                        {:.1f} s\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (o.db.empty())
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(db.string() + suffix);
    return ratio >= o.target ? 0 : 3;
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
