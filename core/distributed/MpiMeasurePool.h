#pragma once

#include "distributed/MpiRuntime.h"
#include "session/MeasurePool.h"
#include "session/SessionPlan.h"

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ts {

// Rank 0's side of an MPI job: the measuring ranks (every other rank, MpiMeasureServer) as the slots of a
// MeasurePool, one batch per rank at a time. Each trial a rank measures carries the metric "mpi_rank" and a
// log line naming the rank, its host and its device.
class MpiMeasurePool : public MeasurePool {
public:
    struct Rank {
        int rank = 0;
        std::string host;
        std::int64_t pid = 0;
        std::string device; // its backend's device fingerprint
    };

    // Sends the plan to every measuring rank and waits until each has built it and said which device it
    // measures on. Throws Error when there is no measuring rank, when a rank cannot measure the plan (one
    // sentence naming the rank and why), when a rank's device is not `device` (the session's), or when
    // `interrupted` says so first; the measuring ranks are then told to stop. `interrupted` is also asked
    // while waiting for results (a signal: mpirun ending the job).
    MpiMeasurePool(MpiRuntime& runtime, const SessionPlan& plan, const SearchSpace& space, std::string device,
                   std::function<bool()> interrupted);
    // Tells every measuring rank to stop (MpiRuntime::stopMeasuringRanks; nothing when the job is being
    // ended).
    ~MpiMeasurePool() override;
    MpiMeasurePool(const MpiMeasurePool&) = delete;
    MpiMeasurePool& operator=(const MpiMeasurePool&) = delete;

    std::size_t freeSlots() const override { return m_idle.size(); }
    void submit(std::int64_t ticket, std::span<const SearchSpace::Index> batch) override;
    std::optional<Completed> waitAny(const std::function<bool()>& stop) override;

    const std::vector<Rank>& ranks() const { return m_ranks; }
    // Why waitAny() gave up when a measuring rank was lost, e.g. "MPI rank 2 (host node07) was lost (its
    // process ended)"; empty while every rank is there. A rank on rank 0's host is lost when its process has
    // ended, one on another host when it has been silent for 5 s (each says it is alive every 100 ms). Once a
    // rank is lost the job cannot end cleanly: mpirun ends it.
    const std::string& lostRanks() const { return m_lost; }

    // Throws Error when a rank's device differs from `device`: the times of one session compare only when
    // they come from one device model.
    static void checkSameDevice(const std::string& device, const std::vector<Rank>& ranks);

private:
    void gatherReadyRanks(const std::string& device);
    void checkForLostRanks();
    const Rank& rankInfo(int rank) const;

    MpiRuntime& m_runtime;
    std::function<bool()> m_interrupted;
    std::vector<Rank> m_ranks;
    std::vector<int> m_idle;            // ranks with no batch
    std::map<int, std::int64_t> m_busy; // rank -> ticket
    std::map<int, std::chrono::steady_clock::time_point> m_lastHeard;
    std::string m_lost;
};

} // namespace ts
