#pragma once

#include "hardware/GpuSpec.h"
#include "hardware/KernelResources.h"
#include "hardware/Occupancy.h"

#include <cstdint>

namespace ts {

// Theoretical occupancy through the CUDA toolkit's cuda_occupancy.h (header only; no GPU needed), fed with
// a GpuSpec's limits and a kernel's resources. Dynamic shared memory is assumed to be opted into
// (cudaFuncAttributeMaxDynamicSharedMemorySize set to the launch's size, as Tunescope's runner does), so a
// block may use up to sharedPerBlockOptin; the carve-out is the driver default (the maximum shared memory).
// Stateless apart from the GPU; safe to use from several threads.
class OccupancyCalculator {
public:
    explicit OccupancyCalculator(GpuSpec gpu);

    // False when Tunescope was built without the toolkit's cuda_occupancy.h; compute() then throws Error.
    static bool available();

    // Throws Error when threadsPerBlock < 1, dynamicSharedBytes < 0, registers < 0, or the header does not
    // know the GPU's compute capability. A launch that cannot run is a result with activeBlocksPerSm == 0.
    Occupancy compute(const KernelResources& kernel, int threadsPerBlock,
                      std::int64_t dynamicSharedBytes = 0) const;

    const GpuSpec& gpu() const { return m_gpu; }

private:
    GpuSpec m_gpu;
};

} // namespace ts
