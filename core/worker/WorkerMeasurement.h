#pragma once

#include "trial/Measurement.h"
#include "worker/WorkerClient.h"

#include <optional>

namespace ts::worker {

// Trials whose samples vary more than this (coefficient of variation) are flagged noisy.
inline constexpr double kNoisyCv = 0.05;

// Adds a worker's result to a measurement (status, log, the worker's metrics, samples); for an Ok result the
// objective is the median sample and the summary (min_ms, mean_ms, stdev_ms, cv, noisy, number and, given the
// kernel's FLOP count, gflops) goes into the metrics. Shared by the cpu and cuda backends.
void addWorkerResult(Measurement& measurement, const WorkerResult& result, std::optional<double> flops);

} // namespace ts::worker
