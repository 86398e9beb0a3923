#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
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
    // The highest clock a core reaches, in MHz; 0 when unknown. query() reads cpufreq's cpuinfo_max_freq
    // (sysfs); where cpufreq is missing (most VMs) it keeps the highest "cpu MHz" of /proc/cpuinfo, which is
    // the clock at the moment of reading (a lower bound of the maximum). clockSource says which.
    double maxClockMHz = 0.0;
    std::string clockSource;
    // Peak memory bandwidth in GB/s (10^9 bytes/s). Linux does not publish it to unprivileged programs, so
    // query() leaves it unset; queryWithBandwidth() fills it with a measurement (see MemoryBandwidth), and
    // memoryBandwidthSource then says how it was measured.
    std::optional<double> memoryBandwidthGBs;
    std::string memoryBandwidthSource;

    // FP32 lanes of the widest vector unit the SIMD flags promise: 16 (avx512f), 8 (avx, avx2), 4 (sse2,
    // neon, asimd); 0 when none is known.
    int fp32Lanes() const;
    // FP32 operations per cycle per lane: 2 (FMA) x 2 (FMA pipes) when the flags show FMA (x86 "fma", ARM
    // "asimd", whose FMLA is fused), else 2 (one add and one multiply pipe).
    int flopsPerLanePerCycle() const;
    // Theoretical peak FP32 GFLOP/s = physicalCores x maxClockMHz / 1000 x fp32Lanes x flopsPerLanePerCycle.
    // Assumptions: every physical core runs at the maximum clock at once (no AVX frequency offset), two
    // vector FMA pipes per core (Haswell and later, Zen 2 and later, Neoverse; some Xeon SKUs have one
    // AVX-512 FMA pipe, so this is an upper bound), SMT adds nothing. Unset when cores, clock or SIMD width
    // are unknown.
    std::optional<double> peakGflops() const;

    static CpuInfo query();
    // query() with memoryBandwidthGBs measured (MemoryBandwidth::measuredOnce: the first call in a process
    // runs a short triad, up to about half a second; call it off a UI thread).
    static CpuInfo queryWithBandwidth();
    // The /proc/cpuinfo part of query(), from any text in that format (caches and logicalCpus stay unset;
    // maxClockMHz is the highest "cpu MHz" line, clockSource "/proc/cpuinfo").
    static CpuInfo parseCpuinfo(std::istream& cpuinfo);
};

} // namespace ts
