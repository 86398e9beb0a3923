#pragma once

#include "backends/Backend.h"
#include "build/BuildCache.h"
#include "cuda/CudaDevices.h"
#include "cuda/CudaStaticAnalyzer.h"
#include "cuda/NvrtcCompiler.h"
#include "hardware/StaticCostModel.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpec.h"
#include "worker/WorkerClient.h"
#include "worker/WorkerMeasurement.h"

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ts {

struct CudaBackendSettings {
    std::filesystem::path worker; // tunescope-worker; empty: worker::locateWorker()
    std::vector<int> devices;     // CUDA ordinals to measure on; empty: every GPU of the first GPU's model
    double timeoutS = 10.0;       // per config: loading, verification, warm-up and samples
    worker::TimingSettings timing;
    std::uint64_t seed = 0;
    bool prune = true;        // skip configs that cannot fit on the GPU (Invalid, never sent to a worker)
    std::string architecture; // empty: the GPU's own sm_XX
    std::vector<std::string> environment;
};

// Builds configs of a kernel's cuda variant with NVRTC (cubins cached on disk) and measures them in one
// tunescope-worker per GPU (backend "cuda" of docs/worker-protocol.md; runner: app/worker/CudaRunner).
// Several GPUs of one model share a session: a batch is spread over their workers, measured in parallel.
// A kernel whose spec names a GPU reference (reference.gpu: cuBLAS) is verified against it on the device, the
// others against their CPU reference.
// Statuses: CompileFailed (NVRTC log), Invalid (outside the constraints, or pruned: the log says why),
// WrongResult, Timeout, RuntimeFailed (a sticky CUDA error restarts that worker). Objective: median ms per
// launch; metrics as the cpu backend plus registers, spill_stores, spill_loads, shared_bytes, occupancy,
// blocks_per_sm, device.
// Construction throws Error "There is no CUDA device ..." (one sentence) on a machine without a GPU.
class CudaBackend : public Backend {
public:
    static constexpr double kNoisyCv = worker::kNoisyCv;

    CudaBackend(const KernelSpec& spec, const KernelSpace& kernelSpace, CudaBackendSettings settings,
                const SearchSpace* space = nullptr);
    ~CudaBackend() override;

    std::string name() const override { return "cuda"; }
    std::string deviceFingerprint() const override;
    // The first GPU measured on, with the driver and toolkit versions.
    DeviceFingerprint deviceDetails() const override;
    std::vector<Measurement> measure(std::span<const Config> batch) override;

    // The spec's GPU reference (cuBLAS SGEMM, or cublasGemmEx on fp16 inputs) timed on the same inputs,
    // through the same worker and timing: the vendor baseline. Throws Error when the spec names none.
    Measurement measureGpuReference();

    const GpuSpec& gpu() const { return m_devices.front().spec; }
    const std::vector<CudaDevice>& devices() const { return m_devices; }
    std::int64_t pruned() const { return m_pruned.load(); }
    CudaStaticAnalyzer& analyzer() { return *m_analyzer; }

private:
    struct Worker;
    worker::MeasureRequest request(const std::string& library, const StaticProfile* profile, int device);
    Measurement run(Worker& worker, const StaticProfile& profile, const std::string& hash);
    Measurement finish(const worker::WorkerResult& result);
    void ensurePrepared(Worker& worker);

    const KernelSpec& m_spec;
    const KernelSpace& m_kernelSpace;
    const SearchSpace& m_space;
    CudaBackendSettings m_settings;
    std::vector<CudaDevice> m_devices;
    std::string m_fingerprint;
    std::unique_ptr<NvrtcCompiler> m_compiler;
    std::unique_ptr<CudaStaticAnalyzer> m_analyzer;
    std::unique_ptr<StaticCostModel>
        m_static; // its estimate is stored with each config (kStaticEstimateMetric)
    std::unique_ptr<BuildCache> m_hostCache;
    BuildResult m_reference;
    std::vector<worker::BufferSpec> m_buffers;
    std::optional<double> m_flops;
    std::vector<std::unique_ptr<Worker>> m_workers;
    std::atomic<std::int64_t> m_nextId{1};
    std::atomic<std::int64_t> m_pruned{0};
};

} // namespace ts
