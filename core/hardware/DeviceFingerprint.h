#pragma once

#include <string>

namespace ts {

// What a measurement is bound to: the device and the software that drove it. Stored per session as a JSON
// object (SessionRecord::deviceInfo) and copied into every deployment entry.
//
// `architecture` is what the lookup's second rule matches: "sm_86" style compute capabilities for GPUs,
// "<vendor> family <n>" for CPUs (same vendor and family: same core design, similar best configs).
struct DeviceFingerprint {
    std::string kind; // "gpu", "cpu", or "" when unknown
    std::string name; // GPU name or CPU model, as the device reports it
    std::string architecture;
    std::string driver;   // GPU driver version
    std::string toolkit;  // CUDA toolkit version
    std::string cpuFlags; // the vector/FMA features that matter to tuned code, space separated
    std::string compiler; // host compiler that built the measured code

    std::string toJson() const;
    // Missing keys stay empty; text that is not a JSON object gives an empty fingerprint.
    static DeviceFingerprint fromJson(const std::string& text);

    // This machine's CPU (CpuInfo; named "unknown CPU" when /proc/cpuinfo names none) and the compiler this
    // build of Tunescope was made with.
    static DeviceFingerprint ofHostCpu();
    // A GPU known only by name (replay datasets): its architecture from a table of common GPUs, or empty.
    static DeviceFingerprint ofGpuName(const std::string& name);
    // "sm_XY" of a known GPU name (case-insensitive substring match: "NVIDIA GeForce RTX 3090" -> "sm_86").
    static std::string gpuArchitecture(const std::string& name);
};

} // namespace ts
