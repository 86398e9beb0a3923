#include "backends/CpuBackend.h"

#include "backends/KernelRequest.h"

#include "kernels/BuildFlags.h"
#include "kernels/KernelSizes.h"
#include "util/Error.h"
#include "worker/WorkerLocator.h"

#include <fmt/format.h>
#include <thread>

namespace ts {

namespace {

// Computing the reference (and filling the inputs) may take far longer than one config; it gets its own
// deadline, at least this long.
constexpr double kPrepareTimeoutS = 120.0;

std::chrono::milliseconds milliseconds(double seconds) {
    return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0));
}

const KernelVariant& cpuVariant(const KernelSpec& spec) {
    const KernelVariant* variant = spec.variant("cpu");
    if (!variant)
        throw Error(fmt::format("Kernel {} has no cpu variant.", spec.name));
    return *variant;
}

worker::WorkerOptions workerOptions(const CpuBackendSettings& settings, const CpuPlan& plan) {
    worker::WorkerOptions options;
    options.executable = settings.worker.empty() ? worker::locateWorker() : settings.worker;
    options.cpu = plan.worker;
    options.environment = settings.environment;
    return options;
}

} // namespace

CpuBackend::CpuBackend(const KernelSpec& spec, const KernelSpace& kernelSpace, CpuBackendSettings settings,
                       const SearchSpace* space)
    : m_spec(spec), m_kernelSpace(kernelSpace), m_space(space ? *space : kernelSpace.space()),
      m_variant(cpuVariant(spec)), m_settings(std::move(settings)),
      m_plan(m_settings.pin ? CpuPlan::split() : CpuPlan{}), m_worker(workerOptions(m_settings, m_plan)) {
    if (m_settings.timeoutS <= 0)
        throw Error(fmt::format("The timeout {} s per config is not positive.", m_settings.timeoutS));
    m_cache = std::make_unique<BuildCache>(HostCompiler::detect(), m_settings.cacheDirectory.empty()
                                                                       ? BuildCache::defaultDirectory()
                                                                       : m_settings.cacheDirectory);
    std::size_t threads = m_settings.buildThreads;
    if (threads == 0)
        threads =
            m_plan.builds.empty() ? std::max(1u, std::thread::hardware_concurrency()) : m_plan.builds.size();
    m_pool = std::make_unique<BuildPool>(*m_cache, threads, m_plan.builds);
    for (const KernelArgument& argument : m_spec.arguments)
        m_buffers.push_back({argument.name, argument.type,
                             argumentCount(m_spec, argument, m_kernelSpace.size()), argument.fill,
                             argument.output});
    m_flops = kernelFlops(m_spec, m_kernelSpace.size());
    if (!m_spec.reference.source.empty()) {
        m_reference = m_cache->build({m_spec.reference.source, m_spec.reference.flags});
        if (!m_reference.ok)
            throw Error(fmt::format("The reference of kernel {} ({}) does not compile: {}", m_spec.name,
                                    m_spec.reference.source.string(), m_reference.log));
    }
}

CpuBackend::~CpuBackend() = default;

std::string CpuBackend::deviceFingerprint() const {
    return fmt::format("cpu: {}; {}", DeviceFingerprint::ofHostCpu().name, m_cache->compiler().version());
}

DeviceFingerprint CpuBackend::deviceDetails() const {
    DeviceFingerprint device = DeviceFingerprint::ofHostCpu();
    device.compiler = m_cache->compiler().version();
    return device;
}

worker::MeasureRequest CpuBackend::request(const std::string& library, const std::string& entry) {
    return KernelRequest{m_spec, m_kernelSpace, m_reference, m_buffers, m_settings.seed, m_settings.timing}
        .make(m_nextId++, "cpu", library, entry);
}

void CpuBackend::ensurePrepared() {
    m_worker.hello(); // starts the worker when none runs
    if (m_preparedStart == m_worker.starts())
        return;
    // A request without a library only fills the inputs and computes the reference.
    worker::WorkerResult prepared = m_worker.measure(
        request("", m_variant.entry), milliseconds(std::max(kPrepareTimeoutS, m_settings.timeoutS)));
    if (prepared.status != MeasureStatus::Ok)
        throw Error(
            fmt::format("The reference of kernel {} failed in the worker: {}", m_spec.name, prepared.log));
    m_preparedStart = m_worker.starts();
}

Measurement CpuBackend::run(const BuildResult& build, const std::string& entry) {
    Measurement m;
    m.compileMs = build.cacheHit ? 0.0 : build.compileMs;
    m.metrics["build_cache_hit"] = build.cacheHit ? 1.0 : 0.0;
    if (!build.ok) {
        m.status = MeasureStatus::CompileFailed;
        m.log = build.log;
        return m;
    }
    ensurePrepared();
    worker::WorkerResult result =
        m_worker.measure(request(build.library.string(), entry), milliseconds(m_settings.timeoutS));
    worker::addWorkerResult(m, result, m_flops);
    return m;
}

std::vector<Measurement> CpuBackend::measure(std::span<const Config> batch) {
    std::vector<Measurement> results(batch.size());
    std::vector<std::optional<std::future<BuildResult>>> builds(batch.size());
    const SearchSpace& space = m_space;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        auto index = batch[i].size() == space.dimension() ? space.indexOf(batch[i]) : std::nullopt;
        if (!index || !space.isValid(*index)) {
            results[i].log = "the config violates the kernel's constraints at this size";
            continue;
        }
        std::vector<std::string> flags = m_variant.flags;
        for (std::string& flag : buildFlags(m_variant.parameters, batch[i]))
            flags.push_back(std::move(flag));
        builds[i] = m_pool->submit({m_variant.source, std::move(flags)});
    }
    // Builds of later configs go on in the pool while earlier ones are measured.
    for (std::size_t i = 0; i < batch.size(); ++i)
        if (builds[i])
            results[i] = run(builds[i]->get(), m_variant.entry);
    return results;
}

Measurement CpuBackend::measureSource(const std::filesystem::path& source,
                                      const std::vector<std::string>& flags, const std::string& entry) {
    return run(m_cache->build({source, flags}), entry);
}

} // namespace ts
