#include "distributed/MpiRuntime.h"

#include "distributed/MpiChannel.h"
#include "util/Error.h"

#include <mpi.h>

#include <algorithm>
#include <vector>

namespace ts {

MpiRuntime::MpiRuntime() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized)
        throw Error("MPI is initialized already: one MpiRuntime per process.");
    if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
        throw Error("MPI could not be initialized (MPI_Init failed); start the job with mpirun or srun.");
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_size);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    m_host.assign(name, static_cast<std::size_t>(std::max(length, 0)));
    // The ranks sharing this node, by world rank: this rank's index among its measuring ones.
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m_rank, MPI_INFO_NULL, &node);
    int nodeSize = 1;
    MPI_Comm_size(node, &nodeSize);
    std::vector<int> worldRanks(static_cast<std::size_t>(nodeSize));
    MPI_Allgather(&m_rank, 1, MPI_INT, worldRanks.data(), 1, MPI_INT, node);
    MPI_Comm_free(&node);
    m_deviceIndex = static_cast<int>(
        std::count_if(worldRanks.begin(), worldRanks.end(), [this](int r) { return r != 0 && r < m_rank; }));
}

void MpiRuntime::stopMeasuringRanks() {
    if (m_rank != 0 || m_ranksStopped || m_abandoned)
        return;
    m_ranksStopped = true;
    for (int rank = 1; rank < m_size; ++rank)
        MpiChannel::send(rank, MpiChannel::Tag::Stop, nlohmann::json::object());
}

MpiRuntime::~MpiRuntime() {
    if (m_abandoned)
        return;
    try {
        stopMeasuringRanks();
    } catch (const std::exception&) {
        // The ranks are gone already; finalizing is all that is left.
    }
    MPI_Finalize();
}

} // namespace ts
