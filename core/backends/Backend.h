#pragma once

#include "trial/Measurement.h"
#include "space/Value.h"

#include <span>
#include <string>
#include <vector>

namespace ts {

// Builds and measures configs. Implementations: ReplayBackend (datasets), later cpu and cuda.
// measure() is called from the session's thread only; one result per config, in order.
class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    // What the measurements depend on: device name (and driver/toolkit, CPU model, compiler when known).
    virtual std::string deviceFingerprint() const = 0;
    virtual std::vector<Measurement> measure(std::span<const Config> batch) = 0;
};

} // namespace ts
