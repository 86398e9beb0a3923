#pragma once

#include "kernels/KernelSpace.h"
#include "kernels/KernelSpec.h"

#include <array>
#include <cstdint>
#include <string>

namespace ts {

// The launch geometry of one config of a CUDA variant: its grid, block and dynamic shared memory
// expressions (docs/kernel-spec.md) evaluated over the config's parameters and the problem size.
struct LaunchShape {
    std::array<std::int64_t, 3> grid{1, 1, 1};
    std::array<std::int64_t, 3> block{1, 1, 1};
    std::int64_t dynamicSharedBytes = 0;

    std::int64_t threadsPerBlock() const { return block[0] * block[1] * block[2]; }
    std::int64_t blocks() const { return grid[0] * grid[1] * grid[2]; }

    // Throws Error naming the kernel, the expression and the config when an expression does not evaluate to
    // a whole number (>= 1 for grid and block, >= 0 for shared memory). `spec` must be the one `space` was
    // built from.
    static LaunchShape of(const KernelSpec& spec, const KernelSpace& space, SearchSpace::Index index);
};

} // namespace ts
