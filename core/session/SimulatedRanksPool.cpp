#include "session/SimulatedRanksPool.h"

#include "util/Error.h"

#include <algorithm>

namespace ts {

namespace {

SessionPlan undelayed(SessionPlan plan) {
    plan.replayDelayMs = 0.0; // the pool keeps the time itself, without sleeping it
    return plan;
}

const SessionPlan& checked(const SessionPlan& plan, std::size_t ranks) {
    if (plan.backend != "replay")
        throw Error("Simulated measuring ranks replay a dataset: give --dataset, not a kernel.");
    if (!(plan.replayDelayMs > 0.0))
        throw Error(
            "Simulated measuring ranks need --replay-delay-ms above 0: each replayed measurement takes "
            "that long on their clock.");
    if (ranks == 0)
        throw Error("Simulated measuring ranks: give at least 1.");
    return plan;
}

} // namespace

SimulatedRanksPool::SimulatedRanksPool(const SessionPlan& plan, const SearchSpace& space, std::size_t ranks)
    : m_space(space), m_ranks(ranks), m_delayMs(checked(plan, ranks).replayDelayMs),
      m_target(undelayed(plan)) {}

double SimulatedRanksPool::clockMs() const {
    return m_jumpedMs +
           std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_jumpedAt).count();
}

void SimulatedRanksPool::submit(std::int64_t ticket, std::span<const SearchSpace::Index> batch) {
    if (freeSlots() == 0)
        throw Error("No simulated measuring rank is free for another batch.");
    std::vector<Config> configs;
    for (SearchSpace::Index index : batch)
        configs.push_back(m_space.config(index));
    Running running{clockMs(), m_submitted++, {ticket, m_target.backend().measure(configs)}};
    for (const Measurement& m : running.completed.measurements)
        if (m.status != MeasureStatus::Invalid)
            running.doneAtMs += m_delayMs;
    m_running.push_back(std::move(running));
}

std::vector<SimulatedRanksPool::Running>::iterator SimulatedRanksPool::earliest() {
    return std::min_element(m_running.begin(), m_running.end(), [](const Running& a, const Running& b) {
        return a.doneAtMs != b.doneAtMs ? a.doneAtMs < b.doneAtMs : a.order < b.order;
    });
}

MeasurePool::Completed SimulatedRanksPool::take(std::vector<Running>::iterator it) {
    Completed completed = std::move(it->completed);
    m_running.erase(it);
    return completed;
}

std::optional<MeasurePool::Completed> SimulatedRanksPool::waitAny(const std::function<bool()>& stop) {
    if (m_running.empty() || (stop && stop()))
        return std::nullopt;
    auto next = earliest();
    if (next->doneAtMs > clockMs()) { // nothing is done yet: the clock jumps to the next completion
        m_jumpedMs = next->doneAtMs;
        m_jumpedAt = std::chrono::steady_clock::now();
    }
    return take(next);
}

std::optional<MeasurePool::Completed> SimulatedRanksPool::poll() {
    if (m_running.empty())
        return std::nullopt;
    auto next = earliest();
    if (next->doneAtMs > clockMs())
        return std::nullopt;
    return take(next);
}

} // namespace ts
