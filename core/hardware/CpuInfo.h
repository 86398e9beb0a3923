#pragma once

#include <cstdint>
#include <iosfwd>
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
// /proc/cpuinfo and /sys/devices/system/cpu on Linux; fields stay empty where those are missing. The one
// reader of /proc/cpuinfo: device fingerprints and backends take the CPU from here.
struct CpuInfo {
    std::string model;  // "model name" of the first processor
    std::string vendor; // "vendor_id", e.g. GenuineIntel
    std::string family; // "cpu family", e.g. 6
    int logicalCpus = 0;
    int physicalCores = 0;
    std::vector<CpuCache> caches;  // cpu0's, by level
    std::vector<std::string> simd; // e.g. sse4_2 avx avx2 fma avx512f, in that order
    std::vector<std::string>
        flags; // every feature flag of the first processor ("flags", or ARM's "Features")

    static CpuInfo query();
    // The /proc/cpuinfo part of query(), from any text in that format (caches and logicalCpus stay unset).
    static CpuInfo parseCpuinfo(std::istream& cpuinfo);
};

} // namespace ts
