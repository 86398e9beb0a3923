#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ts {

// What Tunescope knows about one GPU model: identity, peak rates and the per-SM / per-block limits that
// decide occupancy. Filled from resources/hardware/gpus.json (datasheet values, see its "sources") or, when a
// GPU is present, from the CUDA runtime's properties (CudaDevices). Units: bytes, MHz, GB/s (10^9 B/s),
// TFLOP/s (10^12 FLOP/s, dense).
struct GpuSpec {
    std::string id;                   // database key, e.g. "H100_SXM"
    std::string name;                 // marketing name, e.g. "NVIDIA H100 SXM5 80GB"
    std::vector<std::string> aliases; // other names accepted by GpuDatabase::find ("H100")
    std::string source;               // where the figures come from ("datasheet: ...", "CUDA runtime")

    int computeMajor = 0;
    int computeMinor = 0;
    int smCount = 0;
    double baseClockMHz = 0.0;
    double boostClockMHz = 0.0;
    double memoryGB = 0.0;
    std::string memoryType;
    double memoryBandwidthGBs = 0.0;
    double fp32TFlops = 0.0;
    double fp16TensorTFlops = 0.0; // FP16 inputs, FP32 accumulate; 0 when the GPU has no tensor cores
    double bf16TensorTFlops = 0.0; // 0 when the GPU has no BF16 tensor path
    std::int64_t l2Bytes = 0;

    int warpSize = 32;
    int maxThreadsPerBlock = 1024;
    int maxThreadsPerSm = 0;
    int maxBlocksPerSm = 0;
    int registersPerSm = 65536;
    int registersPerBlock = 65536;
    int maxRegistersPerThread = 255;
    std::int64_t sharedPerSm = 0;            // largest shared-memory carve-out per SM
    std::int64_t sharedPerBlock = 49152;     // without opt-in
    std::int64_t sharedPerBlockOptin = 0;    // with cudaFuncAttributeMaxDynamicSharedMemorySize
    std::int64_t reservedSharedPerBlock = 0; // taken by the driver from every block (1 KB since sm_80)

    int maxWarpsPerSm() const { return warpSize > 0 ? maxThreadsPerSm / warpSize : 0; }
    // "sm_90": the NVRTC --gpu-architecture for this GPU.
    std::string architecture() const;
    // "9.0"
    std::string computeCapability() const;
};

} // namespace ts
