#include "workload/SchedulerRandom.h"

namespace ts {

namespace {

// SplitMix64's output function: spreads neighbouring seeds and rounds over the whole state.
std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

} // namespace

SchedulerRandom::SchedulerRandom(std::uint64_t seed, std::uint64_t round)
    : m_state(mix(seed) ^ mix(~round)) {}

// SplitMix64 (Steele, Lea and Flood 2014): fixed integer arithmetic, so the same numbers on every platform
// (the standard library's distributions are not specified that exactly).
std::uint64_t SchedulerRandom::next() {
    m_state += 0x9e3779b97f4a7c15ULL;
    return mix(m_state);
}

double SchedulerRandom::uniform() {
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

std::size_t SchedulerRandom::below(std::size_t count) {
    // The modulo bias is below count / 2^64: nothing for a workload's number of tasks.
    return static_cast<std::size_t>(next() % count);
}

} // namespace ts
