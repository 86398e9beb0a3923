#pragma once

#include "workload/TaskScheduler.h"

namespace ts {

// The rule of thumb budget(task) = total x weight / sum(weights): the schedulable task furthest below its
// share of the trials, counting the round to be given, gets it (ties: the lower index). Shares are taken
// over the schedulable tasks and the trials they hold, so a task that drops out (failed, exhausted) leaves
// the rest of the budget to the others in proportion to their weights; a task of weight 0 gets nothing
// after its warm-up (it has none). Keeps every task within one round of its share when each share is at
// least one round (tests/TestTaskSchedulers).
class ProportionalScheduler : public TaskScheduler {
public:
    static constexpr const char* kName = "proportional";

    std::string name() const override { return kName; }
    std::optional<std::size_t> next(const std::vector<TaskState>& tasks, std::uint64_t round,
                                    std::int64_t trialsLeft) const override;
};

} // namespace ts
