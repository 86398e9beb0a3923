#pragma once

#include "trial/Measurement.h"
#include "space/SearchSpace.h"

#include <cstdint>
#include <optional>

namespace ts {

// One evaluated config of a session.
struct Trial {
    std::int64_t number = 0;      // evaluation order in the session, from 0
    SearchSpace::Index index = 0; // product index in the session's space
    Config config;
    Measurement measurement;
    std::optional<double> predicted; // cost model's score made before measuring, when a model made one
    std::int64_t batch = 0;          // the proposal batch it came from
    double elapsedS = 0.0;           // seconds since the session started, at completion
    double strategyMs = 0.0;         // the strategy's share of time spent proposing its batch
    double finishedAt = 0.0;         // unix time (s) at completion
};

} // namespace ts
