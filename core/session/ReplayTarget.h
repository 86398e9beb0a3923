#pragma once

#include "backends/ReplayBackend.h"
#include "records/Dataset.h"
#include "session/SessionPlan.h"

#include <memory>

namespace ts {

// The target of a replay plan: its dataset, narrowed by the plan's constraints, and the backend replaying it
// (stochastic or not, with the plan's seed and delay, and the dataset's static profile when it has one).
// Built by PreparedSession and by a measuring rank of an MPI job from the same plan. Throws Error naming the
// dataset when it cannot be read or a constraint does not apply.
class ReplayTarget {
public:
    // `loaded`: the plan's dataset when the caller has read it already (same path), else null.
    explicit ReplayTarget(const SessionPlan& plan, std::shared_ptr<const Dataset> loaded = nullptr);

    const std::shared_ptr<const Dataset>& dataset() const { return m_dataset; }
    ReplayBackend& backend() { return *m_backend; }

private:
    std::shared_ptr<const Dataset> m_dataset;
    std::unique_ptr<ReplayBackend> m_backend;
};

} // namespace ts
