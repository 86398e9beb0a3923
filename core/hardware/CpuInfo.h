#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ts {

// One level of the CPU's cache hierarchy (from sysfs).
struct CpuCache {
    int level = 0;
    std::string type; // "Data", "Instruction", "Unified"
    std::int64_t bytes = 0;
    int sharedByCpus = 1; // logical CPUs sharing one instance
};

// This machine's CPU: model, core counts, caches and the SIMD features that matter to tuned code. Read from
// /proc/cpuinfo and /sys/devices/system/cpu on Linux; fields stay empty where those are missing.
struct CpuInfo {
    std::string model;
    int logicalCpus = 0;
    int physicalCores = 0;
    std::vector<CpuCache> caches;  // cpu0's, by level
    std::vector<std::string> simd; // e.g. sse4_2 avx avx2 fma avx512f, in that order

    static CpuInfo query();
};

} // namespace ts
