#pragma once

#include "hardware/GpuSpec.h"
#include "hardware/StaticProfile.h"

#include <span>
#include <string>
#include <vector>

namespace ts {

// Hardware-aware features of a config on one GPU, from its StaticProfile: what a cost model needs to tell why
// a config is slow (register pressure, spills, shared memory, occupancy and what limits it, how the grid
// fills the GPU). Meant to be appended to the generic FeatureEncoder columns of the XGBoost cost model: same
// row-major float layout, fixed width, names for display. Stateless apart from the GPU; thread-safe.
//
// Columns (all finite; a config that does not compile gets fits = 0 and zeros elsewhere):
//   registers          registers per thread / 255
//   spill_log2         log2(1 + spill store + spill load bytes)
//   stack_log2         log2(1 + stack frame bytes)
//   shared_log2        log2(1 + static + dynamic shared bytes per block)
//   shared_fraction    allocated shared memory per block / shared memory per SM
//   threads_log2       log2(threads per block)
//   occupancy          active warps / max warps per SM
//   blocks_per_sm      active blocks per SM / max blocks per SM
//   limit_warps, limit_registers, limit_shared, limit_blocks   1 when that resource binds
//   fits               1 when the config compiles and a block fits on an SM
//   sm_fill            min(1, blocks in the grid / SMs)
//   waves_log2         log2(1 + blocks / (SMs x active blocks per SM))
//   tail_efficiency    waves / ceil(waves): how full the last wave is (1 when the grid fits in one wave)
class HardwareFeatures {
public:
    explicit HardwareFeatures(GpuSpec gpu);

    static const std::vector<std::string>& names();
    static std::size_t width() { return names().size(); }

    void encode(const StaticProfile& profile, std::span<float> out) const;
    std::vector<float> encode(std::span<const StaticProfile> profiles) const;

    const GpuSpec& gpu() const { return m_gpu; }

private:
    GpuSpec m_gpu;
};

} // namespace ts
