#include "Commands.h"

#include "hardware/CpuInfo.h"
#ifdef TUNESCOPE_WITH_CUDA
#include "cuda/CudaDevices.h"
#endif

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ts::cli {

namespace {

struct DevicesOptions {
    bool json = false;
};

std::string bytesText(std::int64_t bytes) {
    if (bytes >= (std::int64_t(1) << 30))
        return fmt::format("{:.1f} GiB", double(bytes) / double(1 << 30));
    if (bytes >= (1 << 20))
        return fmt::format("{:.1f} MiB", double(bytes) / double(1 << 20));
    return fmt::format("{} KiB", bytes >> 10);
}

nlohmann::json cpuJson(const CpuInfo& cpu) {
    nlohmann::json caches = nlohmann::json::array();
    for (const CpuCache& c : cpu.caches)
        caches.push_back(
            {{"level", c.level}, {"type", c.type}, {"bytes", c.bytes}, {"shared_by_cpus", c.sharedByCpus}});
    return {{"model", cpu.model},
            {"logical_cpus", cpu.logicalCpus},
            {"physical_cores", cpu.physicalCores},
            {"caches", caches},
            {"simd", cpu.simd}};
}

void printCpu(const CpuInfo& cpu) {
    fmt::print("CPU\n");
    fmt::print("  model           {}\n", cpu.model.empty() ? "unknown" : cpu.model);
    fmt::print("  cores           {} physical, {} logical\n", cpu.physicalCores, cpu.logicalCpus);
    for (const CpuCache& c : cpu.caches)
        fmt::print("  L{} {:<12} {} (shared by {} CPU{})\n", c.level, c.type, bytesText(c.bytes),
                   c.sharedByCpus, c.sharedByCpus == 1 ? "" : "s");
    std::string simd;
    for (const std::string& s : cpu.simd)
        simd += (simd.empty() ? "" : " ") + s;
    fmt::print("  SIMD            {}\n", simd.empty() ? "none detected" : simd);
}

#ifdef TUNESCOPE_WITH_CUDA

nlohmann::json gpuJson(const CudaDevice& d) {
    const GpuSpec& s = d.spec;
    return {{"ordinal", d.ordinal},
            {"name", s.name},
            {"database_id", s.id},
            {"compute_capability", s.computeCapability()},
            {"sm_count", s.smCount},
            {"clock_mhz", s.boostClockMHz},
            {"memory_bytes", d.totalMemoryBytes},
            {"memory_bandwidth_gbs", s.memoryBandwidthGBs},
            {"l2_bytes", s.l2Bytes},
            {"fp32_tflops", s.fp32TFlops},
            {"fp16_tensor_tflops", s.fp16TensorTFlops},
            {"max_threads_per_sm", s.maxThreadsPerSm},
            {"max_blocks_per_sm", s.maxBlocksPerSm},
            {"registers_per_sm", s.registersPerSm},
            {"shared_per_sm", s.sharedPerSm},
            {"shared_per_block_optin", s.sharedPerBlockOptin},
            {"pci_bus_id", d.pciBusId},
            {"uuid", d.uuid},
            {"ecc", d.eccEnabled},
            {"source", s.source}};
}

void printGpu(const CudaDevice& d) {
    const GpuSpec& s = d.spec;
    fmt::print("GPU {}: {}\n", d.ordinal, s.name);
    fmt::print("  compute cap.    {} ({})\n", s.computeCapability(), s.architecture());
    fmt::print("  SMs             {} at up to {:.0f} MHz\n", s.smCount, s.boostClockMHz);
    fmt::print("  memory          {} at {:.0f} GB/s (from clock and bus width), L2 {}\n",
               bytesText(d.totalMemoryBytes), s.memoryBandwidthGBs, bytesText(s.l2Bytes));
    fmt::print("  peak FP32       {:.1f} TFLOP/s (SMs x lanes x 2 x clock)\n", s.fp32TFlops);
    if (s.fp16TensorTFlops > 0)
        fmt::print("  peak FP16 TC    {:.0f} TFLOP/s (datasheet, database entry {})\n", s.fp16TensorTFlops,
                   s.id);
    fmt::print("  per SM          {} threads, {} blocks, {} registers, {} shared memory\n", s.maxThreadsPerSm,
               s.maxBlocksPerSm, s.registersPerSm, bytesText(s.sharedPerSm));
    fmt::print("  per block       {} threads, {} shared memory ({} opt-in)\n", s.maxThreadsPerBlock,
               bytesText(s.sharedPerBlock), bytesText(s.sharedPerBlockOptin));
    fmt::print("  PCI             {}  {}{}\n", d.pciBusId, d.uuid, d.eccEnabled ? "  ECC on" : "");
}

#endif

void runDevices(const DevicesOptions& options) {
    const CpuInfo cpu = CpuInfo::query();
    nlohmann::json out{{"cpu", cpuJson(cpu)}, {"gpus", nlohmann::json::array()}};
#ifdef TUNESCOPE_WITH_CUDA
    const CudaDevices cuda = CudaDevices::query();
    out["cuda_runtime"] = CudaDevices::versionText(cuda.runtimeVersion());
    out["cuda_driver"] = cuda.driverVersion() ? CudaDevices::versionText(cuda.driverVersion()) : "";
    for (const CudaDevice& d : cuda.devices())
        out["gpus"].push_back(gpuJson(d));
    const std::string none = cuda.empty() ? "No CUDA device (" + cuda.unavailableReason() + ")." : "";
#else
    const std::string none = "No CUDA device (this build of Tunescope has no CUDA backend).";
#endif
    if (!none.empty())
        out["no_gpu_reason"] = none;
    if (options.json) {
        fmt::print("{}\n", out.dump(2));
        return;
    }
#ifdef TUNESCOPE_WITH_CUDA
    fmt::print("CUDA runtime {} (static), driver {}\n", CudaDevices::versionText(cuda.runtimeVersion()),
               cuda.driverVersion() ? CudaDevices::versionText(cuda.driverVersion()) : "not installed");
    for (const CudaDevice& d : cuda.devices())
        printGpu(d);
#endif
    if (!none.empty())
        fmt::print("{}\n", none);
    printCpu(cpu);
}

} // namespace

void addDevicesCommand(CLI::App& app) {
    auto options = std::make_shared<DevicesOptions>();
    CLI::App* cmd = app.add_subcommand("devices", "List the CUDA devices and the CPU of this machine");
    cmd->add_flag("--json", options->json, "Machine-readable output");
    cmd->callback([options] { runDevices(*options); });
}

} // namespace ts::cli
