#pragma once

#include "distributed/MpiRankPool.h"
#include "session/MeasurePool.h"
#include "session/SessionPlan.h"

#include <functional>
#include <string>
#include <vector>

namespace ts {

// The measuring ranks of an MPI job as the slots of one session's MeasurePool (tune --mpi): every rank must
// measure the session's plan, on the session's device.
class MpiMeasurePool : public MeasurePool {
public:
    using Rank = MpiRankPool::Rank;

    // Sends the plan to every measuring rank and waits until each has built it and said which device it
    // measures on. Throws Error when there is no measuring rank, when a rank cannot measure the plan (one
    // sentence naming the rank and why), when a rank's device is not `device` (the session's), or when
    // `interrupted` says so first; the measuring ranks are then told to stop. `interrupted` is also asked
    // while waiting for results (a signal: mpirun ending the job).
    MpiMeasurePool(MpiRuntime& runtime, const SessionPlan& plan, const SearchSpace& space,
                   const std::string& device, std::function<bool()> interrupted);

    std::size_t freeSlots() const override { return m_ranks.freeSlots(0); }
    void submit(std::int64_t ticket, std::span<const SearchSpace::Index> batch) override {
        m_ranks.submit(0, ticket, batch);
    }
    std::optional<Completed> waitAny(const std::function<bool()>& stop) override {
        return m_ranks.waitAny(stop);
    }
    std::optional<Completed> poll() override { return m_ranks.poll(); }

    const std::vector<Rank>& ranks() const { return m_answers; }
    // As MpiRankPool::lostRanks.
    const std::string& lostRanks() const { return m_ranks.lostRanks(); }

    // Throws Error when a rank cannot measure the plan, or when its device differs from `device`: the times
    // of one session compare only when they come from one device model.
    static void checkSameDevice(const std::string& device, const std::vector<Rank>& ranks);

private:
    MpiRankPool m_ranks;
    std::vector<Rank> m_answers;
};

} // namespace ts
