#include "MpiJob.h"

#include "InterruptSignals.h"

#include "util/Error.h"

#ifdef TUNESCOPE_WITH_MPI
#include "distributed/MpiMeasurePool.h"
#include "distributed/MpiMeasureServer.h"
#include "distributed/MpiRankPool.h"
#include "distributed/MpiRuntime.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

namespace ts::cli {

#ifdef TUNESCOPE_WITH_MPI

struct MpiJob::Parts {
    MpiRuntime runtime;
    std::unique_ptr<MpiMeasurePool> pool;
    std::unique_ptr<MpiRankPool> ranks; // a workload's
};

MpiJob::MpiJob(bool wanted) {
    if (wanted)
        m_parts = std::make_unique<Parts>();
}

MpiJob::~MpiJob() = default;

bool MpiJob::servedAsMeasuringRank() {
    if (!m_parts || m_parts->runtime.rank() == 0)
        return false;
    MpiMeasureServer server(m_parts->runtime);
    if (server.serve([] { return InterruptSignals::received() != 0; }) ==
        MpiMeasureServer::Ending::Interrupted) {
        std::fflush(stderr);
        std::_Exit(128 + InterruptSignals::received()); // a measurement may still run: no unwinding
    }
    return true;
}

MeasurePool* MpiJob::pool(PreparedSession& prepared) {
    if (!m_parts)
        return nullptr;
    m_parts->pool = std::make_unique<MpiMeasurePool>(m_parts->runtime, prepared.plan(), prepared.space(),
                                                     prepared.backend().deviceFingerprint(),
                                                     [] { return InterruptSignals::received() != 0; });
    fmt::print(stderr, "Measuring on {} MPI rank{}: ", m_parts->pool->ranks().size(),
               m_parts->pool->ranks().size() > 1 ? "s" : "");
    std::string list;
    for (const MpiMeasurePool::Rank& rank : m_parts->pool->ranks())
        list += fmt::format("{}{} on {}", list.empty() ? "" : ", ", rank.rank, rank.host);
    fmt::print(stderr, "{} ({}).\n", list, m_parts->pool->ranks().front().device);
    return m_parts->pool.get();
}

WorkloadPool* MpiJob::workloadPool() {
    if (!m_parts)
        return nullptr;
    m_parts->ranks =
        std::make_unique<MpiRankPool>(m_parts->runtime, [] { return InterruptSignals::received() != 0; });
    fmt::print(stderr, "Measuring on {} MPI rank{}; each task is sent to them when it opens.\n",
               m_parts->runtime.size() - 1, m_parts->runtime.size() > 2 ? "s" : "");
    return m_parts->ranks.get();
}

std::string MpiJob::lostRanks() const {
    if (m_parts && m_parts->pool)
        return m_parts->pool->lostRanks();
    if (m_parts && m_parts->ranks)
        return m_parts->ranks->lostRanks();
    return {};
}

#else

struct MpiJob::Parts {};

MpiJob::MpiJob(bool wanted) {
    if (wanted)
        throw Error(
            "This tunescope-cli was built without MPI, so it has no --mpi: install libopenmpi-dev and "
            "openmpi-bin, then build again (scripts/bootstrap).");
}

MpiJob::~MpiJob() = default;

bool MpiJob::servedAsMeasuringRank() {
    return false;
}

MeasurePool* MpiJob::pool(PreparedSession&) {
    return nullptr;
}

WorkloadPool* MpiJob::workloadPool() {
    return nullptr;
}

std::string MpiJob::lostRanks() const {
    return {};
}

#endif

} // namespace ts::cli
