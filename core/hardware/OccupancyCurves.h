#pragma once

#include "hardware/KernelResources.h"
#include "hardware/Occupancy.h"
#include "hardware/OccupancyCalculator.h"

#include <string>
#include <vector>

namespace ts {

// One point of an occupancy curve.
struct OccupancyPoint {
    double x = 0.0;         // in the curve's unit
    double occupancy = 0.0; // active warps / max warps per SM, in [0, 1]
    int activeBlocksPerSm = 0;
    int activeWarpsPerSm = 0;
};

// Occupancy as one resource varies and the others stay at the config's values, as in NVIDIA's occupancy
// calculator. Points are in ascending x; the occupancy is a step function of x, so draw the points joined
// by lines (they are dense enough) or as steps. `marked` is the config itself (its x also appears in
// `points` at the same occupancy).
struct OccupancyCurve {
    std::string xLabel; // "threads per block", "registers per thread", "shared memory per block"
    std::string xUnit;  // "threads", "registers", "bytes"
    std::vector<OccupancyPoint> points;
    OccupancyPoint marked;
};

// The three curves the hardware panel draws for one config on one GPU, plus the config's own occupancy.
// Plain data computed in core (no Qt): the GUI only draws it. Cost: about 1,500 occupancy evaluations
// (well under a millisecond); call it from any thread.
//   threads:      every multiple of the warp size up to maxThreadsPerBlock (plus the config's own count),
//                 same registers per thread and shared memory per block;
//   registers:    1 .. maxRegistersPerThread, same threads and shared memory;
//   sharedMemory: static + dynamic shared memory per block from the static size to one step past the opt-in
//                 per-block limit in 256-byte steps (plus the config's own size), same threads and registers.
struct OccupancyCurves {
    Occupancy current;
    OccupancyCurve threads;
    OccupancyCurve registers;
    OccupancyCurve sharedMemory;

    // Throws Error as OccupancyCalculator::compute does.
    static OccupancyCurves compute(const OccupancyCalculator& calculator, const KernelResources& kernel,
                                   int threadsPerBlock, std::int64_t dynamicSharedBytes = 0);
};

} // namespace ts
