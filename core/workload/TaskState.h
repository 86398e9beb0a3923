#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// What a task scheduler knows of one task of a workload, rebuilt from the task's trials (so that a resumed
// workload schedules as the uninterrupted one would).
struct TaskState {
    static constexpr double kNoBest = std::numeric_limits<double>::infinity();

    double weight = 1.0;     // calls per inference: its share of the end-to-end latency
    std::int64_t trials = 0; // measured so far
    // The task's best time (ms) after each of its rounds, oldest first; kNoBest while it has no valid
    // config. A round is one batch of the task's session.
    std::vector<double> bestHistory;
    // The task's trials after each of its rounds, parallel to bestHistory (rounds differ in size: a
    // strategy's batches may grow).
    std::vector<std::int64_t> trialsHistory;
    // Work of one call (flops) when the kernel says, for the similar-task term; and the group of tasks that
    // are similar (the same kernel), empty for none.
    std::optional<double> flops;
    std::string group;
    // What the task's strategy expects its next trial to gain (ms below its best), as of its last round
    // (Strategy::expectedGain); none for strategies without a model or before their first ranking.
    std::optional<double> expectedGain;
    // False once the task cannot take more trials: it failed (does not build, no valid config at its size)
    // or its space is exhausted.
    bool active = true;

    double best() const { return bestHistory.empty() ? kNoBest : bestHistory.back(); }
    bool hasBest() const { return best() != kNoBest; }
    std::size_t rounds() const { return bestHistory.size(); }
    // Whether a scheduler may give it a round: it can take trials and they count. A task of weight 0 is kept
    // at its default config: the warm-up gives it no round and no scheduler does.
    bool schedulable() const { return active && weight > 0.0; }
};

} // namespace ts
