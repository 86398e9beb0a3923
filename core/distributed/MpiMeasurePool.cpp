#include "distributed/MpiMeasurePool.h"

#include "distributed/MeasurementJson.h"
#include "distributed/MpiChannel.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>

namespace ts {

namespace {

// How often rank 0 looks for lost ranks while it waits, and how long a rank on another host may be silent
// (it says it is alive every 100 ms) before it counts as lost. A rank on rank 0's host is lost when its
// process has ended: mpirun ends the whole job about a second after a rank dies, time enough to say so.
constexpr auto kLossCheckInterval = std::chrono::milliseconds(50);
constexpr auto kSilence = std::chrono::seconds(5);

// True when process `pid` of this host has exited (gone, or a zombie not reaped yet).
bool processEnded(std::int64_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return true;
    const std::size_t close = line.rfind(')'); // the command name may hold spaces and parentheses
    return close == std::string::npos || close + 2 >= line.size() || line[close + 2] == 'Z' ||
           line[close + 2] == 'X';
}

std::string rankList(const std::vector<int>& ranks) {
    std::string text;
    for (std::size_t i = 0; i < ranks.size(); ++i)
        text += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
    return text;
}

} // namespace

MpiMeasurePool::MpiMeasurePool(MpiRuntime& runtime, const SessionPlan& plan, const SearchSpace& space,
                               std::string device, std::function<bool()> interrupted)
    : m_runtime(runtime), m_interrupted(std::move(interrupted)) {
    if (runtime.size() < 2)
        throw Error("An MPI session needs at least two ranks (rank 0 runs the session, the others measure); "
                    "start it with mpirun -np 2 or more.");
    std::vector<std::string> parameters;
    for (const Parameter& p : space.parameters())
        parameters.push_back(p.name);
    const nlohmann::json message{
        {"plan", plan.toJson()}, {"space_size", space.productSize()}, {"parameters", parameters}};
    for (int rank = 1; rank < runtime.size(); ++rank)
        MpiChannel::send(rank, MpiChannel::Tag::Plan, message);
    try {
        gatherReadyRanks(device);
    } catch (...) {
        m_runtime.stopMeasuringRanks(); // the destructor of an object that throws is not called
        throw;
    }
}

void MpiMeasurePool::gatherReadyRanks(const std::string& device) {
    std::map<int, Rank> answered;
    std::vector<std::string> problems;
    while (answered.size() + problems.size() < static_cast<std::size_t>(m_runtime.size() - 1)) {
        std::optional<MpiChannel::Message> hello = MpiChannel::receive(m_interrupted);
        if (!hello) {
            m_runtime.abandon();
            throw Error("The MPI job was ended while its ranks were getting ready to measure; nothing was "
                        "measured.");
        }
        if (hello->tag != MpiChannel::Tag::Hello)
            continue;
        const nlohmann::json& body = hello->body;
        Rank info{hello->source, body.value("host", ""), body.value("pid", std::int64_t{0}),
                  body.value("device", "")};
        if (body.contains("error"))
            problems.push_back(fmt::format("MPI rank {} (host {}) cannot measure this session: {}", info.rank,
                                           info.host, body["error"].get<std::string>()));
        else
            answered[info.rank] = info;
    }
    if (!problems.empty()) {
        std::sort(problems.begin(), problems.end());
        throw Error(problems.front() +
                    (problems.size() > 1 ? fmt::format(" (and {} more ranks)", problems.size() - 1) : "") +
                    ".");
    }
    for (const auto& [rank, info] : answered) {
        m_ranks.push_back(info);
        m_idle.push_back(rank);
        m_lastHeard[rank] = std::chrono::steady_clock::now();
    }
    checkSameDevice(device, m_ranks);
    std::reverse(m_idle.begin(), m_idle.end()); // dealt from the back: rank 1 first
}

MpiMeasurePool::~MpiMeasurePool() {
    try {
        m_runtime.stopMeasuringRanks();
    } catch (const std::exception&) {
        // A rank is gone; the job ends anyway.
    }
}

void MpiMeasurePool::checkSameDevice(const std::string& device, const std::vector<Rank>& ranks) {
    for (const Rank& rank : ranks)
        if (rank.device != device)
            throw Error(
                fmt::format("MPI rank {} (host {}) measures on \"{}\", not on \"{}\" like the session: "
                            "the times of one session compare only on one device model, so tune each "
                            "model in a session of its own.",
                            rank.rank, rank.host, rank.device, device));
}

const MpiMeasurePool::Rank& MpiMeasurePool::rankInfo(int rank) const {
    for (const Rank& info : m_ranks)
        if (info.rank == rank)
            return info;
    throw Error(fmt::format("MPI rank {} is not a measuring rank of this session.", rank));
}

void MpiMeasurePool::submit(std::int64_t ticket, std::span<const SearchSpace::Index> batch) {
    if (m_idle.empty())
        throw Error("No measuring rank is free for another batch.");
    const int rank = m_idle.back();
    m_idle.pop_back();
    MpiChannel::send(
        rank, MpiChannel::Tag::Batch,
        {{"ticket", ticket}, {"indices", std::vector<SearchSpace::Index>(batch.begin(), batch.end())}});
    m_busy[rank] = ticket;
}

std::optional<MeasurePool::Completed> MpiMeasurePool::waitAny(const std::function<bool()>& stop) {
    auto lastCheck = std::chrono::steady_clock::now();
    for (;;) {
        std::optional<MpiChannel::Message> message = MpiChannel::receive([&] {
            if (std::chrono::steady_clock::now() - lastCheck >= kLossCheckInterval) {
                lastCheck = std::chrono::steady_clock::now();
                checkForLostRanks();
            }
            return !m_lost.empty() || (m_interrupted && m_interrupted()) || (stop && stop());
        });
        if (!message)
            return std::nullopt;
        m_lastHeard[message->source] = std::chrono::steady_clock::now();
        if (message->tag != MpiChannel::Tag::Result || !m_busy.count(message->source))
            continue;
        const Rank& rank = rankInfo(message->source);
        const std::int64_t ticket = m_busy[rank.rank];
        m_busy.erase(rank.rank);
        m_idle.push_back(rank.rank);
        const nlohmann::json& body = message->body;
        if (body.contains("error"))
            throw Error(fmt::format("MPI rank {} (host {}) failed to measure a batch: {}", rank.rank,
                                    rank.host, body["error"].get<std::string>()));
        Completed done;
        done.ticket = ticket;
        const std::string what = fmt::format("measurement sent by MPI rank {}", rank.rank);
        const std::string line =
            fmt::format("measured by MPI rank {} on host {} ({})", rank.rank, rank.host, rank.device);
        for (const nlohmann::json& json : body.value("measurements", nlohmann::json::array())) {
            Measurement m = measurementFromJson(json, what);
            m.metrics["mpi_rank"] = rank.rank;
            m.log += (m.log.empty() ? "" : "\n") + line;
            done.measurements.push_back(std::move(m));
        }
        return done;
    }
}

void MpiMeasurePool::checkForLostRanks() {
    const auto now = std::chrono::steady_clock::now();
    std::vector<int> lost;
    std::string why;
    for (const Rank& rank : m_ranks) {
        if (rank.host == m_runtime.host()) {
            if (processEnded(rank.pid)) {
                lost.push_back(rank.rank);
                why = "its process ended";
            }
        } else if (now - m_lastHeard[rank.rank] > kSilence) {
            lost.push_back(rank.rank);
            why = fmt::format("it has not answered for {} s",
                              std::chrono::duration_cast<std::chrono::seconds>(kSilence).count());
        }
    }
    if (lost.empty())
        return;
    m_runtime.abandon(); // the job cannot end cleanly without it
    std::vector<std::string> hosts;
    for (int rank : lost)
        hosts.push_back(rankInfo(rank).host);
    std::sort(hosts.begin(), hosts.end());
    hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
    std::string hostText;
    for (const std::string& host : hosts)
        hostText += (hostText.empty() ? "" : ", ") + host;
    m_lost = fmt::format("MPI rank{} {} (host {}) {} lost ({})", lost.size() > 1 ? "s" : "", rankList(lost),
                         hostText, lost.size() > 1 ? "were" : "was",
                         lost.size() > 1 ? "they stopped answering" : why);
}

} // namespace ts
