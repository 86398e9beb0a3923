#include "Commands.h"

#include "hardware/GpuDatabase.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpecReader.h"
#include "datasets/DatasetProfile.h"
#include "datasets/DatasetReader.h"
#include "util/Error.h"
#include "util/OutputFile.h"
#ifdef TUNESCOPE_WITH_CUDA
#include "InterruptSignals.h"
#include "Interrupted.h"
#include "cuda/CudaDevices.h"
#include "cuda/CudaStaticAnalyzer.h"
#include "cuda/DatasetProfiler.h"
#endif

#include <chrono>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <random>

namespace ts::cli {

namespace {

struct AnalyzeOptions {
    std::string kernel;
    std::string specFile;
    std::string target;
    std::string size;
    std::string architecture;
    int limit = 20;
    bool all = false;
    std::uint64_t seed = 1;
    bool json = false;
    std::string dataset;
    std::string out;
    std::size_t threads = 0;
    bool product = false;
    std::size_t sample = 0;
};

[[maybe_unused]] KernelSpec loadSpec(const AnalyzeOptions& options) {
    if (!options.specFile.empty() && !options.kernel.empty())
        throw Error("Give either --kernel or --kernel-spec, not both.");
    if (!options.specFile.empty())
        return readKernelSpec(options.specFile);
    if (options.kernel.empty())
        throw Error("Name a kernel with --kernel (see tunescope-cli kernels) or give --kernel-spec FILE.");
    return KernelCatalog().find(options.kernel);
}

#ifdef TUNESCOPE_WITH_CUDA

// The GPU to analyse for: --target from the database, else the first local GPU.
GpuSpec targetGpu(const AnalyzeOptions& options) {
    if (!options.target.empty())
        return GpuDatabase::builtin().get(options.target);
    const CudaDevices devices = CudaDevices::query();
    if (devices.empty())
        throw Error(
            fmt::format("--target is needed: there is no CUDA device here (GPUs in the database: {}).",
                        GpuDatabase::builtin().idList()));
    return devices.devices().front().spec;
}

// The default config first, then a seeded sample of the rest (or all of them).
std::vector<SearchSpace::Index> chooseConfigs(const KernelSpace& space, const AnalyzeOptions& options) {
    if (options.limit < 1 && !options.all)
        throw Error(fmt::format("--limit {} must be at least 1.", options.limit));
    std::vector<SearchSpace::Index> chosen;
    const auto def = space.defaultIndex();
    if (def)
        chosen.push_back(*def);
    if (options.all) {
        for (SearchSpace::Index index : space.space().validIndices())
            if (!def || index != *def)
                chosen.push_back(index);
        return chosen;
    }
    std::mt19937_64 rng(options.seed);
    std::vector<SearchSpace::Index> sample =
        space.space().sample(static_cast<std::size_t>(options.limit) + 1, SpaceMode::Constrained, rng);
    std::sort(sample.begin(), sample.end());
    for (SearchSpace::Index index : sample)
        if (chosen.size() < static_cast<std::size_t>(options.limit) && (!def || index != *def))
            chosen.push_back(index);
    return chosen;
}

std::string sharedText(const StaticProfile& p) {
    if (p.launch.dynamicSharedBytes == 0)
        return std::to_string(p.resources.staticSharedBytes);
    return fmt::format("{}+{}", p.resources.staticSharedBytes, p.launch.dynamicSharedBytes);
}

nlohmann::json profileJson(const KernelSpace& space, const StaticProfile& p) {
    nlohmann::json j{{"config", space.space().key(p.index)},
                     {"compiled", p.compiled},
                     {"threads_per_block", p.launch.threadsPerBlock()},
                     {"blocks", p.launch.blocks()},
                     {"compile_ms", p.compileMs}};
    if (!p.compiled) {
        j["log"] = p.log;
        return j;
    }
    j["registers"] = p.resources.registersPerThread;
    j["spill_stores"] = p.resources.spillStoreBytes;
    j["spill_loads"] = p.resources.spillLoadBytes;
    j["stack_bytes"] = p.resources.stackBytes;
    j["static_shared_bytes"] = p.resources.staticSharedBytes;
    j["dynamic_shared_bytes"] = p.launch.dynamicSharedBytes;
    j["constant_bytes"] = p.resources.constantBytes;
    j["blocks_per_sm"] = p.occupancy.activeBlocksPerSm;
    j["occupancy"] = p.occupancy.occupancy;
    j["limited_by"] = p.occupancy.limitText();
    j["fits"] = p.fits();
    if (!p.fits())
        j["reason"] = p.unfitReason();
    return j;
}

// The static profile of a replay dataset (DatasetProfiler), written atomically to its companion file (or
// --out) once every config is compiled; Ctrl-C stops it between batches and writes nothing.
void runDatasetProfile(const AnalyzeOptions& options) {
    if (!options.size.empty() || options.all)
        throw Error(
            "--size and --all do not apply to --dataset: every config of the dataset is compiled at its "
            "problem size.");
    const KernelSpec spec = loadSpec(options);
    const Dataset dataset = readDataset(options.dataset);
    const GpuSpec gpu = options.target.empty() ? DatasetProfiler::datasetGpu(dataset)
                                               : GpuDatabase::builtin().get(options.target);
    const DatasetProfiler profiler(dataset, spec, gpu);
    const std::string target =
        options.out.empty() ? DatasetProfile::companionPath(dataset.path).string() : options.out;
    OutputFile output(target, "dataset profile"); // refuses an unwritable target before compiling
    output.protect(dataset.path);
    NvrtcCompiler compiler;
    InterruptSignals signals;
    const auto started = std::chrono::steady_clock::now();
    auto last = started - std::chrono::seconds(1);
    DatasetProfiler::Options run;
    run.architecture = options.architecture;
    run.threads = options.threads;
    run.product = options.product;
    run.sample = options.sample;
    run.seed = options.seed;
    run.stopRequested = [] { return InterruptSignals::received() != 0; };
    run.progress = [&](std::size_t done, std::size_t total) {
        const auto now = std::chrono::steady_clock::now();
        if (done < total && now - last < std::chrono::milliseconds(500))
            return;
        last = now;
        const double seconds = std::chrono::duration<double>(now - started).count();
        fmt::print(stderr, "\rprofiling {}: {} of {} configs compiled ({} from the cubin cache), {:.0f} s{}",
                   dataset.path.filename().string(), done, total, compiler.hits(), seconds,
                   done == total ? "\n" : "");
        std::fflush(stderr);
    };
    const std::optional<DatasetProfile> profile = profiler.profile(compiler, run);
    if (!profile) {
        const int signal = InterruptSignals::received();
        fmt::print(stderr, "\n");
        throw Interrupted(signal,
                          fmt::format("analyze stopped by {} before every config was compiled; {} was not "
                                      "written (the compiled configs stay in the cubin cache, so a rerun "
                                      "continues where this one stopped).",
                                      InterruptSignals::name(signal), target));
    }
    output.write(profile->toJson());
    output.commit();
    const auto failed = std::count_if(profile->configs.begin(), profile->configs.end(),
                                      [](const auto& c) { return !c.second.compiled; });
    fmt::print("{}: {} configs of {} compiled for {} ({} did not compile), occupancy on {}\n", target,
               profile->configs.size(), profile->dataset, profile->architecture, failed, profile->gpu);
}

void runAnalyze(const AnalyzeOptions& options) {
    if (!options.dataset.empty())
        return runDatasetProfile(options);
    if (!options.out.empty())
        throw Error("--out names the profile file of --dataset, which was not given.");
    if (options.product || options.sample > 0)
        throw Error("--product and --sample apply to the profile of a --dataset, which was not given.");
    const KernelSpec spec = loadSpec(options);
    const ProblemSize size = options.size.empty() ? spec.defaultSize() : parseProblemSize(spec, options.size);
    const KernelSpace space(spec, "cuda", size);
    const GpuSpec gpu = targetGpu(options);
    NvrtcCompiler compiler;
    CudaStaticAnalyzer analyzer(spec, space, gpu, compiler, options.architecture);
    const std::vector<SearchSpace::Index> configs = chooseConfigs(space, options);
    const std::vector<StaticProfile> profiles = analyzer.analyze(configs);

    std::map<std::string, int> unfit; // reason kind -> count
    int compiled = 0;
    for (const StaticProfile& p : profiles) {
        compiled += p.compiled ? 1 : 0;
        if (!p.fits())
            ++unfit[p.compiled ? "does not fit (" + p.occupancy.limitText() + ")" : "does not compile"];
    }
    const int unfitCount = static_cast<int>(profiles.size()) -
                           static_cast<int>(std::count_if(profiles.begin(), profiles.end(),
                                                          [](const StaticProfile& p) { return p.fits(); }));

    if (options.json) {
        nlohmann::json out{{"kernel", spec.name},
                           {"size", formatProblemSize(spec, size)},
                           {"target", gpu.id},
                           {"architecture", analyzer.architecture()},
                           {"valid_configs", space.space().validCount()},
                           {"analysed", profiles.size()},
                           {"compiled", compiled},
                           {"would_be_pruned", unfitCount},
                           {"cache_hits", compiler.hits()},
                           {"configs", nlohmann::json::array()}};
        if (!analyzer.note().empty())
            out["note"] = analyzer.note();
        for (const StaticProfile& p : profiles)
            out["configs"].push_back(profileJson(space, p));
        fmt::print("{}\n", out.dump(2));
        return;
    }

    std::string names;
    for (const Parameter& parameter : space.space().parameters())
        names += (names.empty() ? "" : ",") + parameter.name;
    fmt::print("kernel {} at {}, target {} ({}, {} SMs), compiled for {} with NVRTC (no GPU needed)\n",
               spec.name, formatProblemSize(spec, size), gpu.id, gpu.computeCapability(), gpu.smCount,
               analyzer.architecture());
    if (!analyzer.note().empty())
        fmt::print("note: {}\n", analyzer.note());
    fmt::print("{} of {} valid configs, default first{}\n\n", profiles.size(), space.space().validCount(),
               options.all ? "" : fmt::format(" (seeded sample, --limit {})", options.limit));
    const std::size_t width = std::max<std::size_t>(names.size(), 6);
    fmt::print("{:<{}}  {:>7} {:>4} {:>11} {:>11} {:>9} {:>9}  {}\n", names, width, "threads", "regs",
               "spill st/ld", "smem B", "blocks/SM", "occupancy", "limited by");
    for (const StaticProfile& p : profiles) {
        const std::string key = space.space().key(p.index);
        if (!p.compiled) {
            fmt::print("{:<{}}  {:>7}  does not compile for {}\n", key, width, p.launch.threadsPerBlock(),
                       analyzer.architecture());
            continue;
        }
        fmt::print("{:<{}}  {:>7} {:>4} {:>11} {:>11} {:>9} {:>8.1f}%  {}\n", key, width,
                   p.launch.threadsPerBlock(), p.resources.registersPerThread,
                   fmt::format("{}/{}", p.resources.spillStoreBytes, p.resources.spillLoadBytes),
                   sharedText(p), p.occupancy.activeBlocksPerSm, 100.0 * p.occupancy.occupancy,
                   p.fits() ? p.occupancy.limitText() : "DOES NOT FIT: " + p.occupancy.limitText());
    }
    fmt::print("\n{} compiled ({} from the cubin cache); {} of {} would be pruned on {}", compiled,
               compiler.hits(), unfitCount, profiles.size(), gpu.id);
    std::string reasons;
    for (const auto& [reason, count] : unfit)
        reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", count, reason);
    fmt::print("{}\n", reasons.empty() ? "." : " (" + reasons + ").");
}

#else

void runAnalyze(const AnalyzeOptions&) {
    throw Error("analyze needs the CUDA backend (NVRTC), and this build of Tunescope has none.");
}

#endif

} // namespace

void addAnalyzeCommand(CLI::App& app) {
    auto options = std::make_shared<AnalyzeOptions>();
    CLI::App* cmd = app.add_subcommand(
        "analyze",
        "Static analysis of a CUDA kernel's configs on a GPU model: registers, spills, shared memory, "
        "occupancy (no GPU needed)");
    cmd->add_option("--kernel", options->kernel, "Kernel name (see tunescope-cli kernels)");
    cmd->add_option("--kernel-spec", options->specFile, "Kernel defined by this kernel.json");
    cmd->add_option("--target", options->target,
                    "GPU model from the database (H100, A100, RTX_3090, ...); default: the local GPU");
    cmd->add_option("--size", options->size,
                    "Problem size: all values (4096,4096,4096) or some by name (M=512)");
    cmd->add_option("--limit", options->limit, "Number of configs to analyse (default 20)");
    cmd->add_flag("--all", options->all, "Analyse every valid config");
    cmd->add_option("--arch", options->architecture,
                    "Compile for this architecture (sm_90) instead of the target's");
    cmd->add_option("--seed", options->seed, "Seed of the config sample");
    cmd->add_flag("--json", options->json, "Machine-readable output");
    cmd->add_option("--dataset", options->dataset,
                    "Make the static profile of this replay dataset: compile each of its configs with the "
                    "--kernel-spec whose cuda parameters are the dataset's (see docs/gpu.md)");
    cmd->add_option("--out", options->out,
                    "With --dataset: the profile file (default: the dataset's name with .profile for "
                    ".json.gz, next to it)");
    cmd->add_option("--threads", options->threads, "Compile threads (default: one per core)");
    cmd->add_flag(
        "--product", options->product,
        "With --dataset: compile every config of the dataset's product, not only those in its file, "
        "so that strategies' hardware features cover product mode too");
    cmd->add_option(
        "--sample", options->sample,
        "With --dataset: compile a uniform sample of this many of its configs (drawn with --seed): a "
        "partial profile, for a quick look; searches with option hardware need every config");
    cmd->callback([options] { runAnalyze(*options); });
}

} // namespace ts::cli
