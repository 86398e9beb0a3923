#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ts {

// The resource that caps the number of resident blocks per SM. When several cap it equally they are all
// listed in Occupancy::limits, in this order.
enum class OccupancyLimit { Warps, Registers, SharedMemory, Blocks, Barriers };

const char* toString(OccupancyLimit limit); // "warps", "registers", "shared memory", "blocks", "barriers"

// Theoretical occupancy of one launch shape of one kernel on one GPU (what cuda_occupancy.h computes).
struct Occupancy {
    int threadsPerBlock = 0;
    std::int64_t dynamicSharedBytes = 0;
    int warpsPerBlock = 0;
    int activeBlocksPerSm = 0; // 0: the launch cannot run on this GPU (see reason)
    int activeWarpsPerSm = 0;
    int maxWarpsPerSm = 0;
    double occupancy = 0.0;             // active warps / max warps per SM, in [0, 1]
    std::vector<OccupancyLimit> limits; // the binding limits; never empty

    // Blocks per SM each resource alone would allow (kUnlimited when it imposes no limit).
    static constexpr int kUnlimited = 2147483647;
    int blocksByWarps = 0;
    int blocksByRegisters = 0;
    int blocksBySharedMemory = 0;
    int blocksByBlocks = 0;
    int blocksByBarriers = kUnlimited;

    int allocatedRegistersPerBlock = 0;       // after per-warp allocation granularity
    std::int64_t allocatedSharedPerBlock = 0; // static + dynamic + reserved, rounded to the granularity
    std::string reason;                       // when activeBlocksPerSm == 0: one sentence saying why

    bool fits() const { return activeBlocksPerSm > 0; }
    OccupancyLimit limit() const { return limits.front(); }
    // "registers" or "warps, blocks"
    std::string limitText() const;
};

} // namespace ts
