#pragma once

#include "hardware/KernelResources.h"
#include "hardware/LaunchShape.h"
#include "hardware/Occupancy.h"
#include "space/SearchSpace.h"

#include <string>

namespace ts {

// What is known about one config on one GPU without running it: whether it compiles for the target, the
// resources ptxas reports, its launch geometry and its theoretical occupancy. Produced by
// CudaStaticAnalyzer; read by the analyze command, pruning, HardwareFeatures and StaticCostModel.
struct StaticProfile {
    SearchSpace::Index index = 0;
    bool compiled = false;    // false: NVRTC rejected the config (see log)
    std::string log;          // NVRTC's log
    std::string architecture; // the sm_XX it was compiled for
    double compileMs = 0.0;
    KernelResources resources;
    LaunchShape launch;
    Occupancy occupancy;

    // Compiles and at least one block fits on an SM (threads, registers and shared memory within limits).
    bool fits() const { return compiled && occupancy.fits(); }
    // One sentence saying why the config cannot run on the target; empty when it fits.
    std::string unfitReason() const;
};

} // namespace ts
