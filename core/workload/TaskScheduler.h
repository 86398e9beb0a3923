#pragma once

#include "strategies/OptionSpec.h"
#include "workload/TaskState.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// Decides which task of a workload gets the next round of trials (TVM MetaSchedule's TaskScheduler,
// Ansor's task scheduler). The workload runs one round at a time: the chosen task's session proposes and
// measures one batch, then the scheduler is asked again.
//
// Rules every scheduler keeps (tests/TestTaskSchedulers): it returns an active task, or nullopt when none is;
// it never starves a task of positive weight to zero trials (the workload gives every task one round before
// asking: warm-up); it is deterministic: the answer depends only on its options, its seed, `round` and the
// states, never on earlier calls, so that a resumed workload schedules as the uninterrupted one would.
class TaskScheduler {
public:
    virtual ~TaskScheduler() = default;

    virtual std::string name() const = 0;

    // The task for round `round` (rounds so far over all tasks), given every task's state and the trials
    // left of the workload's budget (> 0).
    virtual std::optional<std::size_t> next(const std::vector<TaskState>& tasks, std::uint64_t round,
                                            std::int64_t trialsLeft) const = 0;
};

// The weighted end-to-end latency the schedulers minimise: sum over tasks of weight x best time, over the
// tasks that have a best (the others are left out).
double endToEndLatency(const std::vector<TaskState>& tasks);

} // namespace ts
