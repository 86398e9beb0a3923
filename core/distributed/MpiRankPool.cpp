#include "distributed/MpiRankPool.h"

#include "distributed/MeasurementJson.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
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

MpiRankPool::MpiRankPool(MpiRuntime& runtime, std::function<bool()> interrupted)
    : m_runtime(runtime), m_interrupted(std::move(interrupted)),
      m_lastCheck(std::chrono::steady_clock::now()) {
    if (runtime.size() < 2)
        throw Error("An MPI session needs at least two ranks (rank 0 runs the session, the others measure); "
                    "start it with mpirun -np 2 or more.");
}

MpiRankPool::~MpiRankPool() {
    try {
        m_runtime.stopMeasuringRanks();
    } catch (const std::exception&) {
        // A rank is gone; the job ends anyway.
    }
}

std::optional<std::vector<MpiRankPool::Rank>> MpiRankPool::addPlan(std::size_t key, const SessionPlan& plan,
                                                                   const SearchSpace& space,
                                                                   const std::string& device) {
    std::vector<std::string> parameters;
    for (const Parameter& p : space.parameters())
        parameters.push_back(p.name);
    const nlohmann::json message{{"key", key},
                                 {"plan", plan.toJson()},
                                 {"space_size", space.productSize()},
                                 {"parameters", parameters}};
    for (int rank = 1; rank < m_runtime.size(); ++rank)
        MpiChannel::send(rank, MpiChannel::Tag::Plan, message);
    std::map<int, Rank> answers;
    while (answers.size() < static_cast<std::size_t>(m_runtime.size() - 1)) {
        std::optional<MpiChannel::Message> received = receive({});
        if (!received) {
            m_runtime.abandon(); // a rank may be in the middle of building the plan
            return std::nullopt;
        }
        if (received->tag == MpiChannel::Tag::Result) {
            takeResult(*received);
            continue;
        }
        const nlohmann::json& body = received->body;
        if (received->tag != MpiChannel::Tag::Hello || body.value("key", std::size_t{0}) != key)
            continue;
        Rank answer{received->source, body.value("host", ""), body.value("pid", std::int64_t{0}),
                    body.value("device", ""), body.value("error", "")};
        if (!m_known.count(answer.rank)) {
            m_known[answer.rank] = answer;
            m_idle.insert(answer.rank);
        }
        answers[answer.rank] = answer;
    }
    std::vector<Rank> all;
    std::vector<int>& bound = m_bound[key];
    for (const auto& [rank, answer] : answers) {
        all.push_back(answer);
        if (answer.error.empty() && answer.device == device)
            bound.push_back(rank);
    }
    return all;
}

bool MpiRankPool::addTask(std::size_t task, const SessionPlan& plan, const SearchSpace& space,
                          const std::string& device) {
    const std::optional<std::vector<Rank>> added = addPlan(task, plan, space, device);
    if (!added)
        return false;
    const std::vector<Rank>& answers = *added;
    if (!m_bound[task].empty())
        return true;
    for (const Rank& rank : answers)
        if (!rank.error.empty())
            throw Error(fmt::format("no MPI rank can measure it; rank {} (host {}): {}", rank.rank, rank.host,
                                    rank.error));
    throw Error(fmt::format("no MPI rank measures on \"{}\", its session's device (rank {} measures on "
                            "\"{}\")",
                            device, answers.front().rank, answers.front().device));
}

std::size_t MpiRankPool::freeSlots(std::size_t task) const {
    auto it = m_bound.find(task);
    if (it == m_bound.end())
        return 0;
    return static_cast<std::size_t>(
        std::count_if(it->second.begin(), it->second.end(), [this](int rank) { return m_idle.count(rank); }));
}

void MpiRankPool::submit(std::size_t task, std::int64_t ticket, std::span<const SearchSpace::Index> batch) {
    auto bound = m_bound.find(task);
    if (bound == m_bound.end())
        throw Error(fmt::format("Task {} was not sent to the measuring ranks.", task + 1));
    auto rank = std::find_if(bound->second.begin(), bound->second.end(),
                             [this](int r) { return m_idle.count(r) > 0; });
    if (rank == bound->second.end())
        throw Error("No measuring rank is free for another batch.");
    MpiChannel::send(*rank, MpiChannel::Tag::Batch,
                     {{"key", task},
                      {"ticket", ticket},
                      {"indices", std::vector<SearchSpace::Index>(batch.begin(), batch.end())}});
    m_idle.erase(*rank);
    m_busy[*rank] = ticket;
}

std::optional<MeasurePool::Completed> MpiRankPool::waitAny(const std::function<bool()>& stop) {
    while (m_finished.empty()) {
        std::optional<MpiChannel::Message> message = receive(stop);
        if (!message)
            return std::nullopt;
        if (message->tag == MpiChannel::Tag::Result)
            takeResult(*message);
    }
    return nextFinished();
}

std::optional<MeasurePool::Completed> MpiRankPool::poll() {
    while (std::optional<MpiChannel::Message> message = MpiChannel::poll()) {
        m_lastHeard[message->source] = std::chrono::steady_clock::now();
        if (message->tag == MpiChannel::Tag::Result)
            takeResult(*message);
    }
    return nextFinished();
}

std::optional<MeasurePool::Completed> MpiRankPool::nextFinished() {
    if (m_finished.empty())
        return std::nullopt;
    Finished finished = std::move(m_finished.front());
    m_finished.pop_front();
    if (!finished.error.empty())
        throw Error(finished.error);
    return std::move(finished.completed);
}

std::optional<MpiChannel::Message> MpiRankPool::receive(const std::function<bool()>& stop) {
    std::optional<MpiChannel::Message> message = MpiChannel::receive([&] {
        if (std::chrono::steady_clock::now() - m_lastCheck >= kLossCheckInterval) {
            m_lastCheck = std::chrono::steady_clock::now();
            checkForLostRanks();
        }
        return !m_lost.empty() || (m_interrupted && m_interrupted()) || (stop && stop());
    });
    if (message)
        m_lastHeard[message->source] = std::chrono::steady_clock::now();
    return message;
}

void MpiRankPool::takeResult(const MpiChannel::Message& message) {
    auto busy = m_busy.find(message.source);
    if (busy == m_busy.end())
        return; // no batch of this rank is in flight: nothing to take
    const Rank& rank = known(message.source);
    Finished finished;
    finished.completed.ticket = busy->second;
    m_busy.erase(busy);
    m_idle.insert(rank.rank);
    const nlohmann::json& body = message.body;
    if (body.contains("error")) {
        finished.error = fmt::format("MPI rank {} (host {}) failed to measure a batch: {}", rank.rank,
                                     rank.host, body["error"].get<std::string>());
    } else {
        const std::string what = fmt::format("measurement sent by MPI rank {}", rank.rank);
        const std::string line =
            fmt::format("measured by MPI rank {} on host {} ({})", rank.rank, rank.host, rank.device);
        for (const nlohmann::json& json : body.value("measurements", nlohmann::json::array())) {
            Measurement m = measurementFromJson(json, what);
            m.metrics["mpi_rank"] = rank.rank;
            m.log += (m.log.empty() ? "" : "\n") + line;
            finished.completed.measurements.push_back(std::move(m));
        }
    }
    m_finished.push_back(std::move(finished));
}

const MpiRankPool::Rank& MpiRankPool::known(int rank) const {
    auto it = m_known.find(rank);
    if (it == m_known.end())
        throw Error(fmt::format("MPI rank {} is not a measuring rank of this job.", rank));
    return it->second;
}

void MpiRankPool::checkForLostRanks() {
    const auto now = std::chrono::steady_clock::now();
    std::vector<int> lost;
    std::string why;
    for (const auto& [number, rank] : m_known) {
        if (rank.host == m_runtime.host()) {
            if (processEnded(rank.pid)) {
                lost.push_back(number);
                why = "its process ended";
            }
        } else if (now - m_lastHeard[number] > kSilence) {
            lost.push_back(number);
            why = fmt::format("it has not answered for {} s",
                              std::chrono::duration_cast<std::chrono::seconds>(kSilence).count());
        }
    }
    if (lost.empty())
        return;
    m_runtime.abandon(); // the job cannot end cleanly without it
    std::vector<std::string> hosts;
    for (int rank : lost)
        hosts.push_back(known(rank).host);
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
