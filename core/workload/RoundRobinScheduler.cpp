#include "workload/RoundRobinScheduler.h"

namespace ts {

std::optional<std::size_t> RoundRobinScheduler::next(const std::vector<TaskState>& tasks, std::uint64_t,
                                                     std::int64_t) const {
    std::optional<std::size_t> chosen;
    for (std::size_t i : schedulableTasks(tasks))
        if (!chosen || tasks[i].rounds() < tasks[*chosen].rounds())
            chosen = i;
    return chosen;
}

} // namespace ts
