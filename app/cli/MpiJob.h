#pragma once

#include "session/MeasurePool.h"
#include "session/PreparedSession.h"
#include "workload/WorkloadPool.h"

#include <memory>
#include <string>

namespace ts::cli {

// tune --mpi and workload tune --mpi: this process's part of an MPI job (docs/cluster.md). Rank 0 runs the
// command as without --mpi, its measurements dealt to the other ranks (pool(), workloadPool()); every other
// rank only measures (servedAsMeasuringRank()). Without --mpi it does nothing; in a build without MPI, --mpi
// is refused.
class MpiJob {
public:
    // Joins the MPI job when `wanted`. Throws Error when this build has no MPI.
    explicit MpiJob(bool wanted);
    ~MpiJob();
    MpiJob(const MpiJob&) = delete;
    MpiJob& operator=(const MpiJob&) = delete;

    // On a measuring rank: measures what rank 0 sends until it says stop, and returns true (the command is
    // done here); ends the process when mpirun ends the job. False on rank 0 and without --mpi.
    bool servedAsMeasuringRank();
    // Rank 0: the measuring ranks, ready to measure `prepared`'s session (they built its plan and measure on
    // its device); null without --mpi. Throws Error naming a rank that cannot.
    MeasurePool* pool(PreparedSession& prepared);
    // Rank 0: the measuring ranks as a workload's pool, each task sent to them when it opens and bound to
    // the ranks that measure on its device; null without --mpi.
    WorkloadPool* workloadPool();
    // After the session or workload: why it stopped early when a measuring rank was lost ("MPI rank 2 (host
    // h) was lost (its process ended)"), else empty.
    std::string lostRanks() const;

private:
    struct Parts;
    std::unique_ptr<Parts> m_parts;
};

} // namespace ts::cli
