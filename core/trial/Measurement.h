#pragma once

#include "trial/MeasureStatus.h"

#include <map>
#include <string>
#include <vector>

namespace ts {

// What a backend reports for one config. Times are in milliseconds.
struct Measurement {
    MeasureStatus status = MeasureStatus::Invalid;
    double objective = 0.0;      // the time that counts (mean of the samples for replay); only when Ok
    std::vector<double> samples; // every raw sample
    double compileMs = 0.0;
    std::string log; // compiler log or failure reason
    // Backend-specific figures, by snake_case name: "gflops", "noisy" (0/1), "registers", "spill_stores",
    // "shared_bytes", "occupancy", ... Stored with the trial.
    std::map<std::string, double> metrics;
};

} // namespace ts
