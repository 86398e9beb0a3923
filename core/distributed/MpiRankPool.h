#pragma once

#include "distributed/MpiChannel.h"
#include "distributed/MpiRuntime.h"
#include "workload/WorkloadPool.h"

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ts {

// Rank 0's side of an MPI job: the measuring ranks (every other rank, MpiMeasureServer), one batch per rank
// at a time, for the plans they were sent, each under a key (a workload's task; 0 for a lone session). A
// plan is bound to the ranks that built it and measure on its session's device. Each trial a rank measures
// carries the metric "mpi_rank" and a log line naming the rank, its host and its device.
class MpiRankPool : public WorkloadPool {
public:
    // A measuring rank's answer to a plan: where it runs, its backend's device fingerprint, or why it cannot
    // measure the plan.
    struct Rank {
        int rank = 0;
        std::string host;
        std::int64_t pid = 0;
        std::string device;
        std::string error;
    };

    // Throws Error when the job has no measuring rank. `interrupted` is asked while waiting (a signal:
    // mpirun ending the job).
    MpiRankPool(MpiRuntime& runtime, std::function<bool()> interrupted);
    // Tells every measuring rank to stop (MpiRuntime::stopMeasuringRanks; nothing when the job is being
    // ended).
    ~MpiRankPool() override;
    MpiRankPool(const MpiRankPool&) = delete;
    MpiRankPool& operator=(const MpiRankPool&) = delete;

    // Sends the plan to every measuring rank under `key` and waits until each has built it or said why it
    // cannot (a rank still measuring answers after its batch; results arriving meanwhile are kept for
    // waitAny()). Binds the key to the ranks that measure on `device`, and returns every rank's answer by
    // rank; nullopt when a rank is lost (lostRanks()) or the job is ended first.
    std::optional<std::vector<Rank>> addPlan(std::size_t key, const SessionPlan& plan,
                                             const SearchSpace& space, const std::string& device);

    // addPlan(), refused with one sentence when no rank is bound: none can measure the plan, or none
    // measures on `device`.
    bool addTask(std::size_t task, const SessionPlan& plan, const SearchSpace& space,
                 const std::string& device) override;
    std::size_t freeSlots(std::size_t task) const override;
    void submit(std::size_t task, std::int64_t ticket, std::span<const SearchSpace::Index> batch) override;
    // Also gives up (nullopt) when a measuring rank is lost (lostRanks()). Throws Error when a rank could not
    // measure a batch at all (its backend failed, not a config).
    std::optional<MeasurePool::Completed> waitAny(const std::function<bool()>& stop) override;
    std::optional<MeasurePool::Completed> poll() override;

    // Why waitAny() gave up when a measuring rank was lost, e.g. "MPI rank 2 (host node07) was lost (its
    // process ended)"; empty while every rank is there. A rank on rank 0's host is lost when its process has
    // ended, one on another host when it has been silent for 5 s (each says it is alive every 100 ms). Once a
    // rank is lost the job cannot end cleanly: mpirun ends it.
    const std::string& lostRanks() const { return m_lost; }

private:
    struct Finished {
        MeasurePool::Completed completed;
        std::string error; // the rank's sentence when it could not measure the batch
    };
    // The next message, looking for lost ranks meanwhile; nullopt when one is lost, `interrupted` or `stop`.
    std::optional<MpiChannel::Message> receive(const std::function<bool()>& stop);
    // A result: its rank is idle again and the batch waits in m_finished.
    void takeResult(const MpiChannel::Message& message);
    // The first result kept, rethrowing a rank's failure to measure; nullopt when none is kept.
    std::optional<MeasurePool::Completed> nextFinished();
    void checkForLostRanks();
    const Rank& known(int rank) const;

    MpiRuntime& m_runtime;
    std::function<bool()> m_interrupted;
    std::map<int, Rank> m_known;                     // by rank, from its first answer
    std::map<std::size_t, std::vector<int>> m_bound; // key -> ranks measuring it
    std::set<int> m_idle;                            // ranks with no batch
    std::map<int, std::int64_t> m_busy;              // rank -> ticket
    std::deque<Finished> m_finished;                 // results not handed out yet
    std::map<int, std::chrono::steady_clock::time_point> m_lastHeard;
    std::chrono::steady_clock::time_point m_lastCheck;
    std::string m_lost;
};

} // namespace ts
