#pragma once

#include "store/WorkloadRecord.h"
#include "session/PreparedSession.h"
#include "workload/TaskState.h"
#include "workload/WorkloadPlan.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// One task of a running workload: its plan, its record, its session once it has one, and the state the
// scheduler sees. The session is built when the task gets its first round (so that it can start warm from
// the tasks of its kernel measured before it) or, after a resume, its next one.
class WorkloadTask {
public:
    WorkloadTask(WorkloadTaskPlan plan, WorkloadTaskRecord record);

    const WorkloadTaskPlan& plan() const { return m_plan; }
    const WorkloadTaskRecord& record() const { return m_record; }
    WorkloadTaskRecord& record() { return m_record; }
    const TaskState& state() const { return m_state; }
    TaskState& state() { return m_state; }
    PreparedSession* session() { return m_session.get(); }
    const PreparedSession* session() const { return m_session.get(); }
    void setSession(std::unique_ptr<PreparedSession> session) { m_session = std::move(session); }
    void closeSession() { m_session.reset(); }

    // How one trial went, as far as the scheduler cares.
    struct Outcome {
        std::int64_t batch = 0;
        bool ok = false;
        double objective = 0.0;
    };
    // The state's trial count and best history rebuilt from the task's trials in evaluation order (live or
    // stored): one history entry per batch.
    void rebuildHistory(const std::vector<Outcome>& trials);

    // The best time (ms) of the task's dataset when known (replay), for the oracle.
    std::optional<double> optimum() const { return m_optimum; }
    void setOptimum(std::optional<double> optimum) { m_optimum = optimum; }

private:
    WorkloadTaskPlan m_plan;
    WorkloadTaskRecord m_record;
    TaskState m_state;
    std::unique_ptr<PreparedSession> m_session;
    std::optional<double> m_optimum;
};

} // namespace ts
