#pragma once

#include "session/MeasurePool.h"
#include "session/PreparedSession.h"

#include <memory>
#include <string>

namespace ts::cli {

// tune --mpi: this process's part of an MPI job (docs/cluster.md). Rank 0 runs the command as without --mpi,
// its session's measurements dealt to the other ranks (pool()); every other rank only measures
// (servedAsMeasuringRank()). Without --mpi it does nothing; in a build without MPI, --mpi is refused.
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
    // After the session: why it stopped early when a measuring rank was lost ("MPI rank 2 (host h) was lost
    // (its process ended)"), else empty.
    std::string lostRanks() const;

private:
    struct Parts;
    std::unique_ptr<Parts> m_parts;
};

} // namespace ts::cli
