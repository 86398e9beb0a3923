#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ts {

// What one operator of a model is to the tuner: a call (or `calls` calls) of a kernel of the catalog at a
// size, or left out with the reason (no kernel for the operator, or not at these attributes).
struct ModelOperator {
    std::string kernel;                                     // empty: left out
    std::vector<std::pair<std::string, std::int64_t>> size; // by the kernel's size names, in its order
    std::int64_t calls = 1;                                 // kernel calls per run of the operator
    std::string reason;                                     // why it is left out
    // Open dimensions of the model the size depends on but that have no value (--dim NAME=V binds them).
    std::vector<std::string> openDims;

    bool mapped() const { return !kernel.empty(); }
};

} // namespace ts
