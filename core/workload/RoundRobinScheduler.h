#pragma once

#include "workload/TaskScheduler.h"

namespace ts {

// MetaSchedule's RoundRobin: the schedulable tasks take rounds in turn, whatever their weight (a task of
// weight 0 takes none: it is kept at its default config). The turn is read from the states, not kept: the
// task with the fewest rounds, the lower index first, which is the cycle 0, 1, ..., n-1, 0, ... once every
// task has had its warm-up, and stays an even split (rounds differing by at most one) when a task drops out.
class RoundRobinScheduler : public TaskScheduler {
public:
    static constexpr const char* kName = "round_robin";

    std::string name() const override { return kName; }
    std::optional<std::size_t> next(const std::vector<TaskState>& tasks, std::uint64_t round,
                                    std::int64_t trialsLeft) const override;
};

} // namespace ts
