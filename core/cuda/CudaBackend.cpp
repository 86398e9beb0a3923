#include "cuda/CudaBackend.h"

#include "backends/KernelRequest.h"

#include "cuda/NvrtcProgram.h"
#include "hardware/StaticEstimateFit.h"
#include "kernels/KernelSizes.h"
#include "util/Error.h"
#include "worker/WorkerLocator.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

namespace ts {

namespace {

using std::chrono::milliseconds;

constexpr double kPrepareTimeoutS = 300.0; // filling inputs and a CPU reference of a large problem

milliseconds millis(double seconds) {
    return milliseconds(static_cast<std::int64_t>(seconds * 1000.0));
}

// The arithmetic peak the static model measures a kernel against (FLOP/s): the tensor rate when an input is
// fp16 or bf16 and the GPU has one, else FP32.
double peakFlops(const KernelSpec& spec, const GpuSpec& gpu) {
    bool half = false, bfloat = false;
    for (const KernelArgument& argument : spec.arguments) {
        half |= argument.type == ElementType::Float16;
        bfloat |= argument.type == ElementType::BFloat16;
    }
    const double tensor = bfloat ? gpu.bf16TensorTFlops : half ? gpu.fp16TensorTFlops : 0.0;
    return (tensor > 0 ? tensor : gpu.fp32TFlops) * 1e12;
}

} // namespace

struct CudaBackend::Worker {
    int device = 0;
    std::unique_ptr<worker::WorkerClient> client;
    int preparedStart = 0;
};

CudaBackend::CudaBackend(const KernelSpec& spec, const KernelSpace& kernelSpace, CudaBackendSettings settings,
                         const SearchSpace* space)
    : m_spec(spec), m_kernelSpace(kernelSpace), m_space(space ? *space : kernelSpace.space()),
      m_settings(std::move(settings)) {
    if (m_kernelSpace.variant().backend != "cuda")
        throw Error(fmt::format("Kernel {} has no cuda variant to measure on a GPU.", spec.name));
    if (m_settings.timeoutS <= 0)
        throw Error(fmt::format("The timeout {} s per config is not positive.", m_settings.timeoutS));
    const CudaDevices all = CudaDevices::query();
    if (all.empty())
        throw Error(fmt::format("There is no CUDA device to measure on ({}).", all.unavailableReason()));
    if (m_settings.devices.empty()) {
        for (const CudaDevice& d : all.devices())
            if (d.spec.name == all.devices().front().spec.name)
                m_devices.push_back(d);
    } else {
        for (int ordinal : m_settings.devices) {
            if (ordinal < 0 || ordinal >= static_cast<int>(all.devices().size()))
                throw Error(fmt::format("There is no CUDA device {} (this machine has {}).", ordinal,
                                        all.devices().size()));
            m_devices.push_back(all.devices()[static_cast<std::size_t>(ordinal)]);
            if (m_devices.back().spec.name != m_devices.front().spec.name)
                throw Error(
                    "The CUDA devices of one session must be of one model (records are bound to it).");
        }
    }
    m_fingerprint =
        fmt::format("cuda: {} ({}); driver {}; CUDA runtime {}; NVRTC {}", m_devices.front().spec.name,
                    m_devices.front().spec.architecture(), CudaDevices::versionText(all.driverVersion()),
                    CudaDevices::versionText(all.runtimeVersion()), NvrtcProgram::version());
    m_compiler = std::make_unique<NvrtcCompiler>();
    m_analyzer = std::make_unique<CudaStaticAnalyzer>(m_spec, m_kernelSpace, m_devices.front().spec,
                                                      *m_compiler, m_settings.architecture);
    m_static = std::make_unique<StaticCostModel>(
        m_devices.front().spec, kernelFlops(m_spec, m_kernelSpace.size()),
        kernelBytes(m_spec, m_kernelSpace.size()), peakFlops(m_spec, m_devices.front().spec),
        [this](std::span<const SearchSpace::Index> indices) { return m_analyzer->analyze(indices); });
    for (const KernelArgument& argument : m_spec.arguments)
        m_buffers.push_back({argument.name, argument.type,
                             argumentCount(m_spec, argument, m_kernelSpace.size()), argument.fill,
                             argument.output});
    m_flops = kernelFlops(m_spec, m_kernelSpace.size());
    if (m_spec.reference.gpu.empty() && !m_spec.reference.source.empty()) {
        m_hostCache = std::make_unique<BuildCache>(HostCompiler::detect());
        m_reference = m_hostCache->build({m_spec.reference.source, m_spec.reference.flags});
        if (!m_reference.ok)
            throw Error(fmt::format("The reference of kernel {} ({}) does not compile: {}", m_spec.name,
                                    m_spec.reference.source.string(), m_reference.log));
    }
    const std::filesystem::path executable =
        m_settings.worker.empty() ? worker::locateWorker() : m_settings.worker;
    for (const CudaDevice& d : m_devices) {
        auto w = std::make_unique<Worker>();
        w->device = d.ordinal;
        worker::WorkerOptions options;
        options.executable = executable;
        options.environment = m_settings.environment;
        w->client = std::make_unique<worker::WorkerClient>(options);
        m_workers.push_back(std::move(w));
    }
}

CudaBackend::~CudaBackend() = default;

std::string CudaBackend::deviceFingerprint() const {
    return m_fingerprint;
}

DeviceFingerprint CudaBackend::deviceDetails() const {
    const CudaDevices devices = CudaDevices::query();
    DeviceFingerprint device;
    device.kind = "gpu";
    device.name = gpu().name;
    device.architecture = gpu().architecture();
    device.driver = CudaDevices::versionText(devices.driverVersion());
    device.toolkit = CudaDevices::versionText(devices.runtimeVersion());
    return device;
}

worker::MeasureRequest CudaBackend::request(const std::string& library, const StaticProfile* profile,
                                            int device) {
    worker::MeasureRequest r =
        KernelRequest{m_spec, m_kernelSpace, m_reference, m_buffers, m_settings.seed, m_settings.timing}.make(
            m_nextId++, "cuda", library, m_kernelSpace.variant().entry);
    r.backendOptions = {{"device", device}};
    if (!m_spec.reference.gpu.empty())
        r.backendOptions["reference"] = m_spec.reference.gpu;
    if (profile) {
        r.backendOptions["grid"] = profile->launch.grid;
        r.backendOptions["block"] = profile->launch.block;
        r.backendOptions["dynamic_shared_bytes"] = profile->launch.dynamicSharedBytes;
    }
    return r;
}

void CudaBackend::ensurePrepared(Worker& w) {
    w.client->hello();
    if (w.preparedStart == w.client->starts())
        return;
    const worker::WorkerResult prepared = w.client->measure(
        request("", nullptr, w.device), millis(std::max(kPrepareTimeoutS, m_settings.timeoutS)));
    if (prepared.status != MeasureStatus::Ok)
        throw Error(fmt::format("The reference of kernel {} failed in the worker for GPU {}: {}", m_spec.name,
                                w.device, prepared.log));
    w.preparedStart = w.client->starts();
}

Measurement CudaBackend::finish(const worker::WorkerResult& result) {
    Measurement m;
    worker::addWorkerResult(m, result, m_flops);
    return m;
}

Measurement CudaBackend::run(Worker& w, const StaticProfile& profile, const std::string& hash) {
    ensurePrepared(w);
    const worker::WorkerResult result = w.client->measure(
        request(m_compiler->cubinPath(hash).string(), &profile, w.device), millis(m_settings.timeoutS));
    if (result.reply && result.reply->metrics.count("restart_worker"))
        w.client->stop(); // the CUDA context is poisoned: the next request starts a fresh worker
    Measurement m = finish(result);
    m.metrics["device"] = w.device;
    return m;
}

std::vector<Measurement> CudaBackend::measure(std::span<const Config> batch) {
    std::vector<Measurement> results(batch.size());
    std::vector<SearchSpace::Index> indices;
    std::vector<std::size_t> positions;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        auto index = batch[i].size() == m_space.dimension() ? m_space.indexOf(batch[i]) : std::nullopt;
        if (!index || !m_space.isValid(*index)) {
            results[i].log = "the config violates the kernel's constraints at this size";
            continue;
        }
        // The session's space may be narrower than the kernel's; the kernel space indexes the builds.
        auto kernelIndex = m_kernelSpace.space().indexOf(batch[i]);
        if (!kernelIndex) {
            results[i].log = "the config is not in the kernel's space";
            continue;
        }
        indices.push_back(*kernelIndex);
        positions.push_back(i);
    }
    // Every config of the batch compiles in parallel before any is measured (NVRTC needs no GPU).
    const std::vector<StaticProfile> profiles = m_analyzer->analyze(indices);
    std::vector<std::size_t> toMeasure;
    for (std::size_t j = 0; j < profiles.size(); ++j) {
        const StaticProfile& p = profiles[j];
        Measurement& m = results[positions[j]];
        m.compileMs = p.compileMs;
        m.metrics["registers"] = p.resources.registersPerThread;
        m.metrics["spill_stores"] = static_cast<double>(p.resources.spillStoreBytes);
        m.metrics["spill_loads"] = static_cast<double>(p.resources.spillLoadBytes);
        m.metrics["shared_bytes"] =
            static_cast<double>(p.resources.staticSharedBytes + p.launch.dynamicSharedBytes);
        m.metrics["occupancy"] = p.occupancy.occupancy;
        if (p.compiled && p.fits())
            m.metrics[kStaticEstimateMetric] = m_static->estimateMs(p);
        if (!p.compiled) {
            m.status = MeasureStatus::CompileFailed;
            m.log = p.log;
        } else if (m_settings.prune && !p.fits()) {
            m.status = MeasureStatus::Invalid;
            m.log = "pruned before measuring: " + p.unfitReason();
            m.metrics["pruned"] = 1.0;
            ++m_pruned;
        } else {
            toMeasure.push_back(j);
        }
    }
    // The hash names the cubin on disk: ask the compiler (a cache hit now) for each config to measure.
    auto measureOne = [&](Worker& w, std::size_t j) {
        CudaBuildRequest r;
        r.source = m_kernelSpace.variant().source;
        r.entry = m_kernelSpace.variant().entry;
        r.architecture = m_analyzer->architecture();
        r.flags = m_kernelSpace.variant().flags;
        r.macros = m_kernelSpace.buildFlags(profiles[j].index);
        Measurement m = run(w, profiles[j], m_compiler->hash(r));
        m.compileMs = results[positions[j]].compileMs;
        for (const auto& [name, value] : results[positions[j]].metrics)
            m.metrics.try_emplace(name, value);
        results[positions[j]] = std::move(m);
    };
    // Configs are dealt round-robin to the GPUs' workers, each measuring its share on its own thread.
    std::vector<std::exception_ptr> failures(m_workers.size());
    {
        std::vector<std::jthread> threads;
        for (std::size_t w = 0; w < m_workers.size(); ++w)
            threads.emplace_back([&, w] {
                try {
                    for (std::size_t k = w; k < toMeasure.size(); k += m_workers.size())
                        measureOne(*m_workers[w], toMeasure[k]);
                } catch (...) {
                    failures[w] = std::current_exception();
                }
            });
    }
    for (const auto& failure : failures)
        if (failure)
            std::rethrow_exception(failure);
    return results;
}

Measurement CudaBackend::measureGpuReference() {
    const std::string& routine = m_spec.reference.gpu;
    if (routine.empty())
        throw Error(fmt::format("Kernel {} names no GPU reference (reference.gpu in {}) to measure as its "
                                "baseline.",
                                m_spec.name, m_spec.specFile.string()));
    Worker& w = *m_workers.front();
    ensurePrepared(w);
    worker::MeasureRequest r = request("builtin:" + routine, nullptr, w.device);
    r.backendOptions["builtin"] = routine;
    Measurement m = finish(w.client->measure(r, millis(m_settings.timeoutS)));
    m.metrics["device"] = w.device;
    return m;
}

} // namespace ts
