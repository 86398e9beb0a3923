#pragma once

#include "session/MeasurePool.h"
#include "session/SessionPlan.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>

namespace ts {

// Measures the batches of a workload's tasks elsewhere, several at once (the measuring ranks of an MPI job,
// each building every task's plan for itself). A task is bound to the slots that measure on its session's
// device, so that a workload may span several device models while each task's times come from one.
// WorkloadRun::run(WorkloadPool&) deals batches of any task to free slots and takes results back in the
// order they complete.
class WorkloadPool {
public:
    virtual ~WorkloadPool() = default;
    // Makes task `task` measurable: its plan is built on the slots, and the task is bound to those that can
    // measure it on `device`. Throws Error (one sentence) when none can: the task fails, the workload goes
    // on. False when the pool stopped waiting (a slot lost, the job ended): the workload ends as cancelled.
    virtual bool addTask(std::size_t task, const SessionPlan& plan, const SearchSpace& space,
                         const std::string& device) = 0;
    // Free slots bound to the task: submit() for it may be called this many times before the next waitAny().
    virtual std::size_t freeSlots(std::size_t task) const = 0;
    // Starts measuring the configs (product indices of the task's space) on a free slot bound to the task.
    // Tickets are unique over the whole workload.
    virtual void submit(std::size_t task, std::int64_t ticket, std::span<const SearchSpace::Index> batch) = 0;
    // As MeasurePool::waitAny, over every task's batches.
    virtual std::optional<MeasurePool::Completed> waitAny(const std::function<bool()>& stop) = 0;
    // As MeasurePool::poll.
    virtual std::optional<MeasurePool::Completed> poll() = 0;
};

} // namespace ts
