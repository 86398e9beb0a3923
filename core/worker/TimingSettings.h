#pragma once

#include <cstdint>

namespace ts::worker {

// How a config is timed. Each sample is `number` back-to-back calls; the reported value is ms per call.
struct TimingSettings {
    double warmupMs = 20.0;           // calls before timing, until this much time has passed (at least one)
    int repeat = 7;                   // samples returned
    double minRepeatMs = 20.0;        // `number` grows until one sample lasts at least this long
    bool flush = true;                // evict the caches before every sample (outside the timed region)
    std::int64_t maxNumber = 1 << 20; // upper bound on `number`
};

} // namespace ts::worker
