#pragma once

#include "backends/Backend.h"
#include "build/BuildCache.h"
#include "build/BuildPool.h"
#include "build/CpuAffinity.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpec.h"
#include "worker/WorkerClient.h"
#include "worker/WorkerMeasurement.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ts {

struct CpuBackendSettings {
    std::filesystem::path worker;         // tunescope-worker; empty: worker::locateWorker()
    std::filesystem::path cacheDirectory; // empty: BuildCache::defaultDirectory()
    double timeoutS = 10.0;               // per config: loading, verification, warm-up and samples
    worker::TimingSettings timing;
    std::uint64_t seed = 0; // input fill
    bool pin = true;        // worker on the last core, builds on the others (when there are two or more)
    std::size_t buildThreads = 0;         // 0: one per build core
    std::vector<std::string> environment; // extra "NAME=value" for the worker (e.g. OPENBLAS_NUM_THREADS=1)
};

// Builds configs of a kernel's cpu variant with the host compiler (through the on-disk BuildCache, on a
// BuildPool that keeps compiling later configs of the batch while earlier ones are measured) and measures
// them in a tunescope-worker process: verification against the reference, then timing. Statuses:
// CompileFailed (compiler log in the measurement), WrongResult, Timeout, RuntimeFailed (with the signal),
// Invalid (violates the constraints). Objective: median ms per call; metrics: gflops, cv, noisy,
// min_ms, mean_ms, stdev_ms, number, build_cache_hit, max_abs_error.
//
// The reference is built at construction (a reference that does not compile is an Error naming the kernel).
// measure() runs on the session's thread; the spec and spaces must outlive the backend. `space` is the
// session's space when it is narrower than the kernel's (user constraints); configs outside it are Invalid.
class CpuBackend : public Backend {
public:
    static constexpr double kNoisyCv = worker::kNoisyCv;

    CpuBackend(const KernelSpec& spec, const KernelSpace& kernelSpace, CpuBackendSettings settings,
               const SearchSpace* space = nullptr);
    ~CpuBackend() override;

    std::string name() const override { return "cpu"; }
    std::string deviceFingerprint() const override;
    // The host CPU and the compiler that builds the configs.
    DeviceFingerprint deviceDetails() const override;
    std::vector<Measurement> measure(std::span<const Config> batch) override;

    // Measures any object with the kernel's ABI on the same inputs with the same harness and verification
    // (e.g. a vendor library wrapper as a baseline). flags are the complete extra flags.
    Measurement measureSource(const std::filesystem::path& source, const std::vector<std::string>& flags,
                              const std::string& entry);

    BuildCacheStats buildStats() const { return m_cache->stats(); }
    const BuildCache& buildCache() const { return *m_cache; }
    int workerStarts() const { return m_worker.starts(); }
    const CpuPlan& cpuPlan() const { return m_plan; }

private:
    worker::MeasureRequest request(const std::string& library, const std::string& entry);
    Measurement run(const BuildResult& build, const std::string& entry);
    void ensurePrepared();

    const KernelSpec& m_spec;
    const KernelSpace& m_kernelSpace;
    const SearchSpace& m_space;
    const KernelVariant& m_variant;
    CpuBackendSettings m_settings;
    CpuPlan m_plan;
    std::unique_ptr<BuildCache> m_cache;
    std::unique_ptr<BuildPool> m_pool;
    worker::WorkerClient m_worker;
    BuildResult m_reference;
    std::vector<worker::BufferSpec> m_buffers;
    std::optional<double> m_flops;
    std::int64_t m_nextId = 1;
    int m_preparedStart = 0; // the worker start whose reference is computed
};

} // namespace ts
