#pragma once

#include <cstdint>
#include <string>

namespace ts {

// This machine's memory bandwidth, measured with a STREAM-like triad (a[i] = b[i] + s * c[i] over float
// arrays much larger than the last-level cache, one slice per thread), counting 12 bytes per element as
// STREAM does (two reads, one write; write-allocate traffic not counted). The best of the repetitions is
// kept. Bounded: at most kMaxArrayBytes per array (three arrays) and about kTimeBudgetS of triads.
struct MemoryBandwidth {
    static constexpr std::int64_t kMinArrayBytes = 32ll << 20;
    static constexpr std::int64_t kMaxArrayBytes = 128ll << 20;
    static constexpr double kTimeBudgetS = 0.4;
    static constexpr int kMaxRepetitions = 20;

    double gbPerSecond = 0.0; // 10^9 bytes per second; 0 when the measurement could not run
    int threads = 0;
    std::int64_t arrayBytes = 0; // per array
    int repetitions = 0;
    std::string problem; // why there is no measurement, when gbPerSecond is 0

    // "measured: STREAM-like triad, 2 threads, 3 x 64 MB, best of 9".
    std::string description() const;

    // Runs the triad with `threads` threads (0: one per hardware thread) over arrays of `arrayBytes` each
    // (0: four times the last-level cache, within the bounds above). Never throws: a failed allocation is
    // a result with `problem` set.
    static MemoryBandwidth measure(int threads = 0, std::int64_t arrayBytes = 0);
    // measure() once per process (thread-safe; later calls return the first result at once).
    static const MemoryBandwidth& measuredOnce();
};

} // namespace ts
