#include "workload/TaskScheduler.h"

#include <cmath>

namespace ts {

double endToEndLatency(const std::vector<TaskState>& tasks) {
    double total = 0.0;
    for (const TaskState& task : tasks)
        if (std::isfinite(task.best()))
            total += task.weight * task.best();
    return total;
}

std::vector<std::size_t> schedulableTasks(const std::vector<TaskState>& tasks) {
    std::vector<std::size_t> result;
    for (std::size_t i = 0; i < tasks.size(); ++i)
        if (tasks[i].schedulable())
            result.push_back(i);
    return result;
}

} // namespace ts
