#include "hardware/HardwareFeatures.h"

#include <algorithm>
#include <cmath>

namespace ts {

namespace {

bool binds(const Occupancy& o, OccupancyLimit limit) {
    return std::find(o.limits.begin(), o.limits.end(), limit) != o.limits.end();
}

} // namespace

HardwareFeatures::HardwareFeatures(GpuSpec gpu) : m_gpu(std::move(gpu)) {}

const std::vector<std::string>& HardwareFeatures::names() {
    static const std::vector<std::string> kNames{
        "registers", "spill_log2",    "stack_log2",  "shared_log2",     "shared_fraction", "threads_log2",
        "occupancy", "blocks_per_sm", "limit_warps", "limit_registers", "limit_shared",    "limit_blocks",
        "fits",      "sm_fill",       "waves_log2",  "tail_efficiency"};
    return kNames;
}

void HardwareFeatures::encode(const StaticProfile& p, std::span<float> out) const {
    std::fill(out.begin(), out.end(), 0.0f);
    const double threads = double(std::max<std::int64_t>(p.launch.threadsPerBlock(), 1));
    out[5] = static_cast<float>(std::log2(threads));
    if (!p.compiled)
        return;
    const KernelResources& r = p.resources;
    const Occupancy& o = p.occupancy;
    const double blocks = double(std::max<std::int64_t>(p.launch.blocks(), 1));
    out[0] = static_cast<float>(r.registersPerThread / 255.0);
    out[1] = static_cast<float>(std::log2(1.0 + double(r.spillStoreBytes + r.spillLoadBytes)));
    out[2] = static_cast<float>(std::log2(1.0 + double(r.stackBytes)));
    out[3] = static_cast<float>(std::log2(1.0 + double(r.staticSharedBytes + p.launch.dynamicSharedBytes)));
    out[4] = static_cast<float>(
        m_gpu.sharedPerSm > 0 ? double(o.allocatedSharedPerBlock) / double(m_gpu.sharedPerSm) : 0.0);
    out[6] = static_cast<float>(o.occupancy);
    out[7] = static_cast<float>(m_gpu.maxBlocksPerSm > 0 ? double(o.activeBlocksPerSm) / m_gpu.maxBlocksPerSm
                                                         : 0.0);
    out[8] = binds(o, OccupancyLimit::Warps) ? 1.0f : 0.0f;
    out[9] = binds(o, OccupancyLimit::Registers) ? 1.0f : 0.0f;
    out[10] = binds(o, OccupancyLimit::SharedMemory) ? 1.0f : 0.0f;
    out[11] = binds(o, OccupancyLimit::Blocks) ? 1.0f : 0.0f;
    out[12] = p.fits() ? 1.0f : 0.0f;
    out[13] = static_cast<float>(std::min(1.0, blocks / std::max(m_gpu.smCount, 1)));
    if (p.fits()) {
        const double waves = blocks / (double(std::max(m_gpu.smCount, 1)) * o.activeBlocksPerSm);
        out[14] = static_cast<float>(std::log2(1.0 + waves));
        out[15] = static_cast<float>(waves >= 1.0 ? waves / std::ceil(waves) : 1.0);
    }
}

std::vector<float> HardwareFeatures::encode(std::span<const StaticProfile> profiles) const {
    const std::size_t w = width();
    std::vector<float> rows(profiles.size() * w);
    for (std::size_t i = 0; i < profiles.size(); ++i)
        encode(profiles[i], std::span<float>(rows).subspan(i * w, w));
    return rows;
}

} // namespace ts
