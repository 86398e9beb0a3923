#pragma once

#include <cstdint>

namespace ts {

// What one compiled kernel uses per thread and per block, as ptxas reports it (-Xptxas -v) or as
// cudaFuncGetAttributes returns it on a GPU. Bytes unless named otherwise.
struct KernelResources {
    int registersPerThread = 0;
    std::int64_t staticSharedBytes = 0; // shared memory declared in the source (dynamic comes per launch)
    std::int64_t constantBytes = 0;     // user constant memory (bank 3 / cmem[3] and __constant__)
    std::int64_t stackBytes = 0;        // stack frame per thread
    std::int64_t spillStoreBytes = 0;
    std::int64_t spillLoadBytes = 0;
    int barriers = 1; // named barriers used; ptxas reports it, and Hopper's occupancy depends on it

    bool spills() const { return spillStoreBytes > 0 || spillLoadBytes > 0; }
};

} // namespace ts
