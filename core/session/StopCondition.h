#pragma once

#include <cstdint>
#include <optional>

namespace ts {

// When a session stops on its own. Unset members do not apply; the session also stops when the strategy
// has nothing left to propose.
struct StopCondition {
    std::optional<std::int64_t> maxEvaluations; // unique evaluated configs (the budget)
    std::optional<double> maxSeconds;           // wall time since the start
    std::optional<std::int64_t> patience;       // evaluations without improving the best
    std::optional<double> targetObjective;      // stop once the best is at or below this (ms)
};

} // namespace ts
