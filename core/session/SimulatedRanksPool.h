#pragma once

#include "session/MeasurePool.h"
#include "session/ReplayTarget.h"
#include "session/SessionPlan.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace ts {

// A replayed session measured as `ranks` measuring ranks of an MPI job would measure it (tune
// --simulate-ranks), on a simulated clock instead of a slept one: a batch dealt to a free rank at time t is
// done at t + the plan's replay delay for each of its configs that is not Invalid (what ReplayBackend
// sleeps), and the batches complete in that order. The clock runs on with the real time spent outside
// waitAny(), which is the session's own work (proposals, model fits, records) as on rank 0, and jumps to the
// next completion inside it. So the strategy sees the results in the order, and with the configs in flight,
// of an MPI job whose transport is free, without the job's wall time.
class SimulatedRanksPool : public MeasurePool {
public:
    // Builds the replay target of `plan` (a replay plan with a delay above 0) as each measuring rank would.
    // Throws Error for a plan that is not a replay, a delay of 0, or no rank.
    SimulatedRanksPool(const SessionPlan& plan, const SearchSpace& space, std::size_t ranks);

    std::size_t freeSlots() const override { return m_ranks - m_running.size(); }
    void submit(std::int64_t ticket, std::span<const SearchSpace::Index> batch) override;
    std::optional<Completed> waitAny(const std::function<bool()>& stop) override;
    std::optional<Completed> poll() override;

    // Milliseconds on the simulated clock since the pool was made.
    double clockMs() const;

private:
    struct Running {
        double doneAtMs = 0.0;
        std::uint64_t order = 0; // submission order: the earlier of two batches done at once comes first
        Completed completed;
    };
    // The running batch that completes first; m_running must not be empty.
    std::vector<Running>::iterator earliest();
    Completed take(std::vector<Running>::iterator it);

    const SearchSpace& m_space;
    std::size_t m_ranks;
    double m_delayMs;
    ReplayTarget m_target;
    std::vector<Running> m_running;
    std::uint64_t m_submitted = 0;
    double m_jumpedMs = 0.0; // the clock when it last jumped (or 0)
    std::chrono::steady_clock::time_point m_jumpedAt = std::chrono::steady_clock::now();
};

} // namespace ts
