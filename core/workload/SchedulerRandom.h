#pragma once

#include <cstddef>
#include <cstdint>

namespace ts {

// Random numbers that depend only on (seed, round): a scheduler draws from a fresh one per call, so its
// answer is a function of its inputs (TaskScheduler's determinism rule) and a resumed workload draws what
// the uninterrupted one would have.
class SchedulerRandom {
public:
    SchedulerRandom(std::uint64_t seed, std::uint64_t round);
    // Uniform in [0, 1).
    double uniform();
    // Uniform in [0, count), count > 0.
    std::size_t below(std::size_t count);

private:
    std::uint64_t next();

    std::uint64_t m_state;
};

} // namespace ts
