#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ts {

// A tuning session as stored in the records database.
struct SessionRecord {
    std::int64_t id = 0;
    std::string kernel;
    std::string problem; // JSON text
    std::string device;  // device fingerprint
    std::string backend; // "replay", "cpu", "cuda"
    std::string dataset; // dataset path for replay sessions
    std::string strategy;
    std::string options; // JSON object text
    std::uint64_t seed = 0;
    std::string spaceMode; // "product" or "constrained"
    std::int64_t budget = 0;
    std::string parameters; // JSON array of parameter names
    std::string toolVersion;
    double startedAt = 0.0; // unix time (s)
    std::optional<double> endedAt;
    std::string status = "running"; // running, completed, cancelled, failed
    // Schema 2. What the measurements are bound to, for deployment and for warning when records are applied
    // elsewhere: a hash of the kernel source (or of the dataset file for replay) and the device details as
    // a JSON object (DeviceFingerprint).
    std::string sourceHash;
    std::string deviceInfo = "{}";
    // Everything else `tune --resume` needs to rebuild the session, as a JSON object (constraints, batch
    // size, stop conditions, kernel spec and problem size, ...).
    std::string settings = "{}";
};

} // namespace ts
