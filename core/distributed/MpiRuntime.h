#pragma once

#include <string>

namespace ts {

// This process's part of an MPI job (MPI_Init at construction, MPI_Finalize at destruction): its rank, the
// number of ranks, its host, and which device of its node it measures on. Rank 0 runs the session; every
// other rank measures (MpiMeasureServer). One per process, on the thread that makes every MPI call.
class MpiRuntime {
public:
    MpiRuntime();
    ~MpiRuntime();
    MpiRuntime(const MpiRuntime&) = delete;
    MpiRuntime& operator=(const MpiRuntime&) = delete;

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    // The processor name MPI gives this rank (its host).
    const std::string& host() const { return m_host; }
    // This rank's place among the measuring ranks (all but rank 0) of its node, from 0: the node-local GPU it
    // takes when a node has several (one rank per GPU).
    int deviceIndexOnNode() const { return m_deviceIndex; }

    // Rank 0: tells every measuring rank that the job has nothing (more) for it, once; the destructor does it
    // when nobody did (rank 0 failed before its session started).
    void stopMeasuringRanks();

    // The job is ending without the other ranks (mpirun is tearing it down): no MPI_Finalize, which would
    // wait for ranks that are gone.
    void abandon() { m_abandoned = true; }

private:
    int m_rank = 0;
    int m_size = 1;
    std::string m_host;
    int m_deviceIndex = 0;
    bool m_abandoned = false;
    bool m_ranksStopped = false;
};

} // namespace ts
