#pragma once

#include <span>

namespace ts {

// Summary of raw timing samples. cv = stdev / mean (sample standard deviation, n-1).
struct Statistics {
    double median = 0.0;
    double min = 0.0;
    double mean = 0.0;
    double stdev = 0.0;
    double cv = 0.0;
};

Statistics summarize(std::span<const double> samples);

} // namespace ts
