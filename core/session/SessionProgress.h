#pragma once

#include <cstdint>
#include <optional>

namespace ts {

// A snapshot for progress displays: evaluations against the budget, time and the best so far.
struct SessionProgress {
    std::int64_t evaluations = 0;
    std::optional<std::int64_t> budget;
    double elapsedS = 0.0;
    std::optional<double> etaS; // from the mean time per evaluation, when a budget is set
    std::optional<double> best; // fastest Ok objective (ms)
    std::int64_t invalid = 0;   // evaluations that were not Ok
};

} // namespace ts
