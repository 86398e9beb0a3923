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

} // namespace ts
