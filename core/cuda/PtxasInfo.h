#pragma once

#include "hardware/KernelResources.h"

#include <optional>
#include <string>

namespace ts {

// Reads the resource report of `ptxas -v` (NVRTC's log with -Xptxas -v) for one entry function:
//   ptxas info    : 0 bytes gmem, 64 bytes cmem[3]
//   ptxas info    : Compiling entry function 'gemm' for 'sm_80'
//   ptxas info    : Function properties for gemm
//   ptxas         .     0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
//   ptxas info    : Used 32 registers, used 1 barriers, 4096 bytes smem, 372 bytes cmem[0]
// Module-level constant banks (user __constant__ data) count as constant memory; cmem[0] (the kernel
// parameters) does not. Returns nullopt when the log has no "Used N registers" line for the entry.
std::optional<KernelResources> parsePtxasInfo(const std::string& log, const std::string& entry);

} // namespace ts
