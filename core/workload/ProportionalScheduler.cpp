#include "workload/ProportionalScheduler.h"

#include <algorithm>

namespace ts {

namespace {

// The trials of the round to be given: the workload's batch, capped by what is left. The batch is read from
// the states (a round holds one batch, all but a workload's last round full), as the largest mean round.
std::int64_t roundSize(const std::vector<TaskState>& tasks, std::int64_t trialsLeft) {
    std::int64_t batch = 1;
    for (const TaskState& task : tasks)
        if (task.rounds() > 0) {
            const auto rounds = static_cast<std::int64_t>(task.rounds());
            batch = std::max(batch, (task.trials + rounds - 1) / rounds);
        }
    return std::min(batch, std::max<std::int64_t>(trialsLeft, 1));
}

} // namespace

std::optional<std::size_t> ProportionalScheduler::next(const std::vector<TaskState>& tasks, std::uint64_t,
                                                       std::int64_t trialsLeft) const {
    const std::vector<std::size_t> candidates = schedulableTasks(tasks);
    double weights = 0.0;
    std::int64_t spent = 0;
    for (std::size_t i : candidates) {
        weights += tasks[i].weight;
        spent += tasks[i].trials;
    }
    const double after = static_cast<double>(spent + roundSize(tasks, trialsLeft));
    std::optional<std::size_t> chosen;
    double largestDeficit = 0.0;
    for (std::size_t i : candidates) {
        const double deficit = after * tasks[i].weight / weights - static_cast<double>(tasks[i].trials);
        if (!chosen || deficit > largestDeficit) {
            chosen = i;
            largestDeficit = deficit;
        }
    }
    return chosen;
}

} // namespace ts
