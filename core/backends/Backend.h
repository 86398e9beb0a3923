#pragma once

#include "hardware/DeviceFingerprint.h"
#include "space/Value.h"
#include "trial/Measurement.h"

#include <span>
#include <string>
#include <vector>

namespace ts {

// Builds and measures configs. Implementations: ReplayBackend (datasets), CpuBackend (host compiler and a
// worker process), CudaBackend (NVRTC and one worker per GPU; built with CUDA only).
// measure() is called from the session's thread only; one result per config, in order; a config that cannot
// be measured is a status in its result, never an exception (tests/TestBackendConformance checks all this).
class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    // What the measurements depend on: device name (and driver/toolkit, CPU model, compiler when known).
    virtual std::string deviceFingerprint() const = 0;
    // The same device in detail, as stored with the session (SessionRecord::deviceInfo) and copied into
    // deployment entries: kind and name always set.
    virtual DeviceFingerprint deviceDetails() const = 0;
    virtual std::vector<Measurement> measure(std::span<const Config> batch) = 0;
};

} // namespace ts
