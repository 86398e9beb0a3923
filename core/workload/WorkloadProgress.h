#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ts {

// Where a workload stands after a round: what the progress line and the window's Workload view show.
struct WorkloadProgress {
    std::uint64_t rounds = 0;
    std::int64_t trials = 0; // over all tasks
    std::int64_t budget = 0;
    std::optional<std::size_t> task; // the task of the round just measured
    // Weighted end-to-end latency (ms): sum over tasks with a best of weight x best; and how many tasks of
    // positive weight have none yet (so the sum leaves them out).
    double endToEndMs = 0.0;
    std::size_t tasksWithoutBest = 0;
    // The same sum over every task's optimum, when all are known (replay datasets).
    std::optional<double> oracleMs;
    std::vector<std::int64_t> trialsPerTask;
    // What each task's strategy expects its next trial to gain (ms below its best), as the scheduler sees it;
    // none for a task without a model or before its first ranking.
    std::vector<std::optional<double>> expectedGainPerTask;
    double elapsedS = 0.0;
};

} // namespace ts
