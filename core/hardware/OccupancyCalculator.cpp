#include "hardware/OccupancyCalculator.h"

#include "util/Error.h"

#include <fmt/format.h>

#if __has_include(<cuda_occupancy.h>)
#include <cuda_occupancy.h>
#define TUNESCOPE_HAS_CUDA_OCCUPANCY 1
#endif

namespace ts {

namespace {

#ifdef TUNESCOPE_HAS_CUDA_OCCUPANCY

cudaOccDeviceProp deviceProperties(const GpuSpec& gpu) {
    cudaOccDeviceProp p;
    p.computeMajor = gpu.computeMajor;
    p.computeMinor = gpu.computeMinor;
    p.maxThreadsPerBlock = gpu.maxThreadsPerBlock;
    p.maxThreadsPerMultiprocessor = gpu.maxThreadsPerSm;
    p.regsPerBlock = gpu.registersPerBlock;
    p.regsPerMultiprocessor = gpu.registersPerSm;
    p.warpSize = gpu.warpSize;
    p.sharedMemPerBlock = static_cast<size_t>(gpu.sharedPerBlock);
    p.sharedMemPerMultiprocessor = static_cast<size_t>(gpu.sharedPerSm);
    p.numSms = gpu.smCount;
    p.sharedMemPerBlockOptin = static_cast<size_t>(gpu.sharedPerBlockOptin);
    p.reservedSharedMemPerBlock = static_cast<size_t>(gpu.reservedSharedPerBlock);
    return p;
}

cudaOccFuncAttributes functionAttributes(const GpuSpec& gpu, const KernelResources& kernel,
                                         std::int64_t dynamicSharedBytes) {
    cudaOccFuncAttributes a;
    a.maxThreadsPerBlock = gpu.maxThreadsPerBlock;
    a.numRegs = kernel.registersPerThread;
    a.sharedSizeBytes = static_cast<size_t>(kernel.staticSharedBytes);
    a.partitionedGCConfig = PARTITIONED_GC_OFF;
    // The runner opts every kernel into the dynamic shared memory its launch needs.
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    a.maxDynamicSharedSizeBytes = static_cast<size_t>(dynamicSharedBytes);
    a.numBlockBarriers = kernel.barriers;
    a.virtualResourceCount = 0;
    return a;
}

std::vector<OccupancyLimit> limitsOf(unsigned factors) {
    std::vector<OccupancyLimit> out;
    if (factors & OCC_LIMIT_WARPS)
        out.push_back(OccupancyLimit::Warps);
    if (factors & OCC_LIMIT_REGISTERS)
        out.push_back(OccupancyLimit::Registers);
    if (factors & OCC_LIMIT_SHARED_MEMORY)
        out.push_back(OccupancyLimit::SharedMemory);
    if (factors & OCC_LIMIT_BLOCKS)
        out.push_back(OccupancyLimit::Blocks);
    if (factors & OCC_LIMIT_BARRIERS)
        out.push_back(OccupancyLimit::Barriers);
    return out;
}

#endif

// Why a launch cannot run, from the per-resource block limits (one sentence).
[[maybe_unused]] std::string whyNoBlock(const GpuSpec& gpu, const KernelResources& kernel,
                                        const Occupancy& o) {
    if (o.blocksByWarps == 0)
        return fmt::format("{} threads per block exceed the {} limit of {}.", o.threadsPerBlock, gpu.id,
                           gpu.maxThreadsPerBlock);
    if (o.blocksByRegisters == 0) {
        if (kernel.registersPerThread > gpu.maxRegistersPerThread)
            return fmt::format("{} registers per thread exceed the {} limit of {}.",
                               kernel.registersPerThread, gpu.id, gpu.maxRegistersPerThread);
        return fmt::format(
            "{} registers per thread x {} threads exceed the {} limit of {} registers per block.",
            kernel.registersPerThread, o.threadsPerBlock, gpu.id, gpu.registersPerBlock);
    }
    if (o.blocksBySharedMemory == 0)
        return fmt::format(
            "{} bytes of shared memory per block ({} static + {} dynamic + {} reserved, rounded) "
            "exceed the {} per-block limit of {} bytes.",
            o.allocatedSharedPerBlock, kernel.staticSharedBytes, o.dynamicSharedBytes,
            gpu.reservedSharedPerBlock, gpu.id, gpu.sharedPerBlockOptin + gpu.reservedSharedPerBlock);
    return fmt::format("The launch cannot be resident on an {} SM ({} limits it).", gpu.id, o.limitText());
}

} // namespace

OccupancyCalculator::OccupancyCalculator(GpuSpec gpu) : m_gpu(std::move(gpu)) {}

bool OccupancyCalculator::available() {
#ifdef TUNESCOPE_HAS_CUDA_OCCUPANCY
    return true;
#else
    return false;
#endif
}

Occupancy OccupancyCalculator::compute(const KernelResources& kernel, int threadsPerBlock,
                                       std::int64_t dynamicSharedBytes) const {
    if (threadsPerBlock < 1)
        throw Error(fmt::format("The threads per block ({}) must be at least 1.", threadsPerBlock));
    if (dynamicSharedBytes < 0 || kernel.staticSharedBytes < 0)
        throw Error("The shared memory per block must not be negative.");
    if (kernel.registersPerThread < 0)
        throw Error(
            fmt::format("The registers per thread ({}) must not be negative.", kernel.registersPerThread));
#ifdef TUNESCOPE_HAS_CUDA_OCCUPANCY
    const cudaOccDeviceProp properties = deviceProperties(m_gpu);
    const cudaOccFuncAttributes attributes = functionAttributes(m_gpu, kernel, dynamicSharedBytes);
    const cudaOccDeviceState state;
    cudaOccResult result{};
    cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
        &result, &properties, &attributes, &state, threadsPerBlock, static_cast<size_t>(dynamicSharedBytes));
    if (status != CUDA_OCC_SUCCESS)
        throw Error(
            fmt::format("The occupancy of {} (compute capability {}) cannot be computed: "
                        "cudaOccMaxActiveBlocksPerMultiprocessor returned {}.",
                        m_gpu.id, m_gpu.computeCapability(),
                        status == CUDA_OCC_ERROR_UNKNOWN_DEVICE ? "unknown device" : "invalid input"));
    Occupancy o;
    o.threadsPerBlock = threadsPerBlock;
    o.dynamicSharedBytes = dynamicSharedBytes;
    o.warpsPerBlock = (threadsPerBlock + m_gpu.warpSize - 1) / m_gpu.warpSize;
    o.activeBlocksPerSm = result.activeBlocksPerMultiprocessor;
    o.maxWarpsPerSm = m_gpu.maxWarpsPerSm();
    o.activeWarpsPerSm = o.activeBlocksPerSm * o.warpsPerBlock;
    o.occupancy = o.maxWarpsPerSm > 0 ? static_cast<double>(o.activeWarpsPerSm) / o.maxWarpsPerSm : 0.0;
    o.limits = limitsOf(result.limitingFactors);
    o.blocksByWarps = result.blockLimitWarps;
    o.blocksByRegisters = result.blockLimitRegs;
    o.blocksBySharedMemory = result.blockLimitSharedMem;
    o.blocksByBlocks = result.blockLimitBlocks;
    o.blocksByBarriers = result.blockLimitBarriers;
    o.allocatedRegistersPerBlock = result.allocatedRegistersPerBlock;
    o.allocatedSharedPerBlock = static_cast<std::int64_t>(result.allocatedSharedMemPerBlock);
    if (o.limits.empty())
        o.limits.push_back(OccupancyLimit::Blocks);
    if (!o.fits())
        o.reason = whyNoBlock(m_gpu, kernel, o);
    return o;
#else
    (void)kernel;
    throw Error(
        "Occupancy needs the CUDA toolkit's cuda_occupancy.h, which was not found when Tunescope was built.");
#endif
}

} // namespace ts
