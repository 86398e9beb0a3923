#include "workload/WorkloadTask.h"

#include <algorithm>

namespace ts {

WorkloadTask::WorkloadTask(WorkloadTaskPlan plan, WorkloadTaskRecord record)
    : m_plan(std::move(plan)), m_record(std::move(record)) {
    m_state.weight = m_plan.weight;
}

void WorkloadTask::rebuildHistory(const std::vector<Outcome>& trials) {
    m_state.trials = 0;
    m_state.bestHistory.clear();
    m_state.trialsHistory.clear();
    double best = TaskState::kNoBest;
    std::optional<std::int64_t> batch;
    const auto endRound = [&] {
        m_state.bestHistory.push_back(best);
        m_state.trialsHistory.push_back(m_state.trials);
    };
    for (const Outcome& trial : trials) {
        if (batch && trial.batch != *batch)
            endRound();
        batch = trial.batch;
        if (trial.ok)
            best = std::min(best, trial.objective);
        ++m_state.trials;
    }
    if (batch)
        endRound();
}

} // namespace ts
