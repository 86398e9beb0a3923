#include "distributed/MpiMeasurePool.h"

#include "util/Error.h"

#include <fmt/format.h>

namespace ts {

MpiMeasurePool::MpiMeasurePool(MpiRuntime& runtime, const SessionPlan& plan, const SearchSpace& space,
                               const std::string& device, std::function<bool()> interrupted)
    : m_ranks(runtime, std::move(interrupted)) {
    // A throw from here on destroys m_ranks, which tells the measuring ranks to stop.
    std::optional<std::vector<Rank>> answers = m_ranks.addPlan(0, plan, space, device);
    if (!answers)
        throw Error(m_ranks.lostRanks().empty()
                        ? "The MPI job was ended while its ranks were getting ready to measure; nothing was "
                          "measured."
                        : m_ranks.lostRanks() + " while the ranks were getting ready to measure; nothing was "
                                                "measured.");
    checkSameDevice(device, *answers);
    m_answers = std::move(*answers);
}

void MpiMeasurePool::checkSameDevice(const std::string& device, const std::vector<Rank>& ranks) {
    std::vector<std::string> problems;
    for (const Rank& rank : ranks)
        if (!rank.error.empty())
            problems.push_back(fmt::format("MPI rank {} (host {}) cannot measure this session: {}", rank.rank,
                                           rank.host, rank.error));
    if (!problems.empty())
        throw Error(problems.front() +
                    (problems.size() > 1 ? fmt::format(" (and {} more ranks)", problems.size() - 1) : "") +
                    ".");
    for (const Rank& rank : ranks)
        if (rank.device != device)
            throw Error(
                fmt::format("MPI rank {} (host {}) measures on \"{}\", not on \"{}\" like the session: "
                            "the times of one session compare only on one device model, so tune each "
                            "model in a session of its own.",
                            rank.rank, rank.host, rank.device, device));
}

} // namespace ts
