#pragma once

#include "trial/Trial.h"

#include <cstddef>
#include <optional>
#include <span>

namespace ts {

// The metric under which CudaBackend stores the static cost model's estimate (uncalibrated milliseconds) with
// every config that compiled and fits, measured or not.
inline constexpr const char* kStaticEstimateMetric = "static_ms";

// The static estimate of an Ok trial with a positive time, when it has one: the trials a fit and a plot use.
std::optional<double> staticEstimate(const Trial& trial);

// How the static estimates of a session compare with the measured times of its Ok trials.
struct StaticEstimateFit {
    std::size_t trials = 0; // Ok trials with an estimate
    double spearman = 0.0;  // rank correlation of estimate and measured time (0 under two trials)
    double scale = 1.0;     // median of measured / estimated: multiplies an estimate into this machine's ms
};

StaticEstimateFit fitStaticEstimates(std::span<const Trial> trials);

} // namespace ts
