#include "session/TuningSession.h"

#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace ts {

namespace {

double monotonicSeconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double unixSeconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

// Proposals that only repeat cached configs this many times in a row mean the strategy is stuck.
constexpr int kMaxRepeatedProposals = 1000;

// One measurement per config, whatever the backend returned: a backend that breaks the one-result-per-config
// contract is a failure of the backend, said in the trials' logs (never a silent Invalid, which reads like a
// constraint violation). Missing results are RuntimeFailed; extra ones are dropped, and the batch's results
// say so.
std::vector<Measurement> matchedMeasurements(const std::string& source, std::vector<Measurement> measurements,
                                             std::size_t configs) {
    if (measurements.size() == configs)
        return measurements;
    const std::string problem =
        fmt::format("the {} returned {} measurements for {} configs", source, measurements.size(), configs);
    if (measurements.size() > configs) {
        const std::string dropped =
            fmt::format("{}; the last {} were dropped", problem, measurements.size() - configs);
        measurements.resize(configs);
        for (Measurement& measurement : measurements)
            measurement.log += (measurement.log.empty() ? "" : "\n") + dropped;
        return measurements;
    }
    Measurement missing;
    missing.status = MeasureStatus::RuntimeFailed;
    missing.log = problem + "; this config got none";
    measurements.resize(configs, missing);
    return measurements;
}

} // namespace

TuningSession::TuningSession(const SearchSpace& space, Backend& backend, Strategy& strategy,
                             SessionSettings settings)
    : m_space(space), m_backend(backend), m_strategy(strategy), m_settings(settings) {
    if (m_settings.batchSize == 0)
        m_settings.batchSize = 1;
    std::optional<std::int64_t>& budget = m_settings.stop.maxEvaluations;
    const SearchSpace::Index domain = space.domainSize(m_settings.mode);
    if (budget && *budget > 0 && domain > 0 && static_cast<SearchSpace::Index>(*budget) > domain) {
        m_budgetCappedFrom = budget;
        budget = static_cast<std::int64_t>(domain);
    }
}

void TuningSession::preload(std::vector<Trial> trials) {
    for (Trial& trial : trials) {
        m_preloadedS = std::max(m_preloadedS, trial.elapsedS);
        m_batches = std::max(m_batches, trial.batch + 1);
        record(std::move(trial));
    }
    m_strategy.observe(m_trials);
}

const Trial* TuningSession::best() const {
    return m_best ? &m_trials[*m_best] : nullptr;
}

double TuningSession::elapsed() const {
    return m_preloadedS + activeSeconds();
}

double TuningSession::activeSeconds() const {
    return monotonicSeconds() - m_startedAt - m_pausedS;
}

StopReason TuningSession::run() {
    start();
    std::optional<StopReason> reason;
    while (!(reason = step()))
        ;
    finish(*reason);
    return *reason;
}

void TuningSession::start() {
    m_startedAt = monotonicSeconds();
    m_pausedS = 0.0;
}

std::optional<StopReason> TuningSession::step(std::size_t maxEvaluations) {
    if (auto stop = stopReason())
        return stop;
    if (!waitWhilePaused())
        return StopReason::Cancelled;
    std::size_t maxCount = std::min(m_settings.batchSize, std::max<std::size_t>(maxEvaluations, 1));
    if (m_settings.stop.maxEvaluations)
        maxCount = std::min<std::size_t>(maxCount, *m_settings.stop.maxEvaluations - m_trials.size());
    std::optional<ProposedBatch> batch = propose(maxCount);
    if (!batch)
        return StopReason::Exhausted;
    measureBatch(std::move(*batch));
    return std::nullopt;
}

StopReason TuningSession::run(MeasurePool& pool) {
    start();
    std::optional<StopReason> reason;
    for (;;) {
        if (!reason)
            reason = stopReason();
        while (!reason && !m_paused && pool.freeSlots() > 0) {
            std::optional<Dealt> dealt = deal();
            if (!dealt) {
                if (m_inFlight.empty() && m_strategyDry)
                    reason = StopReason::Exhausted;
                break; // the budget is in flight, or the strategy waits to hear of the batches in flight
            }
            pool.submit(dealt->ticket, dealt->indices);
        }
        if (m_inFlight.empty()) {
            if (reason)
                break;
            if (!waitWhilePaused()) {
                reason = StopReason::Cancelled;
                break;
            }
            continue;
        }
        std::optional<MeasurePool::Completed> done = pool.waitAny([this] { return m_cancelled.load(); });
        if (!done) {
            reason = StopReason::Cancelled; // the batches in flight are given up, not recorded
            break;
        }
        complete(done->ticket, std::move(done->measurements));
        while (std::optional<MeasurePool::Completed> more = pool.poll()) // one model fit for all of them
            complete(more->ticket, std::move(more->measurements));
    }
    if (m_cancelled)
        reason = StopReason::Cancelled;
    finish(*reason);
    return *reason;
}

std::optional<TuningSession::Dealt> TuningSession::deal(std::size_t maxEvaluations) {
    if (stopReason())
        return std::nullopt;
    std::size_t maxCount = std::min(m_settings.batchSize, maxEvaluations);
    if (m_settings.stop.maxEvaluations)
        maxCount = std::min<std::size_t>(maxCount, *m_settings.stop.maxEvaluations - m_trials.size() -
                                                       m_inFlightConfigs);
    if (maxCount == 0)
        return std::nullopt;
    std::optional<ProposedBatch> batch = propose(maxCount);
    m_strategyDry = !batch;
    if (!batch)
        return std::nullopt;
    Dealt dealt{batch->number, batch->indices};
    m_inFlightIndices.insert(batch->indices.begin(), batch->indices.end());
    m_inFlightConfigs += batch->indices.size();
    m_inFlight.emplace(batch->number, std::move(*batch));
    return dealt;
}

void TuningSession::complete(std::int64_t ticket, std::vector<Measurement> measurements) {
    auto it = m_inFlight.find(ticket);
    if (it == m_inFlight.end())
        throw Error(fmt::format("Batch {} was measured, but it is not in flight.", ticket));
    ProposedBatch batch = std::move(it->second);
    m_inFlight.erase(it);
    for (SearchSpace::Index index : batch.indices)
        m_inFlightIndices.erase(index);
    m_inFlightConfigs -= batch.indices.size();
    m_strategyDry = false; // what the strategy hears now may give it more to propose
    std::vector<Measurement> matched =
        matchedMeasurements("measuring pool", std::move(measurements), batch.indices.size());
    recordBatch(std::move(batch), std::move(matched));
}

void TuningSession::finish(StopReason reason) {
    const SessionStatus status =
        reason == StopReason::Cancelled ? SessionStatus::Cancelled : SessionStatus::Completed;
    for (SessionObserver* observer : m_observers)
        observer->finished(status, reason);
}

std::optional<TuningSession::ProposedBatch> TuningSession::propose(std::size_t maxCount) {
    const double proposeStart = monotonicSeconds();
    bool exhausted = false;
    ProposedBatch batch;
    batch.indices = nextBatch(maxCount, exhausted);
    if (exhausted)
        return std::nullopt;
    batch.strategyMs = (monotonicSeconds() - proposeStart) * 1e3;
    batch.number = m_batches++;
    for (SearchSpace::Index index : batch.indices)
        batch.predictions.push_back(m_strategy.prediction(index));
    return batch;
}

std::vector<SearchSpace::Index> TuningSession::nextBatch(std::size_t maxCount, bool& exhausted) {
    // A strategy may walk through configs measured already (a resumed session replays its own history), so
    // the patience grows with the number of trials.
    const std::size_t attempts = kMaxRepeatedProposals + m_trials.size();
    for (std::size_t attempt = 0; attempt < attempts; ++attempt) {
        std::vector<SearchSpace::Index> proposed = m_strategy.propose(maxCount);
        if (proposed.empty())
            break;
        std::vector<SearchSpace::Index> fresh;
        std::vector<Trial> cached;
        for (SearchSpace::Index index : proposed) {
            auto it = m_byIndex.find(index);
            if (it != m_byIndex.end())
                cached.push_back(m_trials[it->second]);
            else if (fresh.size() < maxCount && !m_inFlightIndices.count(index) &&
                     std::find(fresh.begin(), fresh.end(), index) == fresh.end())
                fresh.push_back(index);
        }
        if (!cached.empty())
            m_strategy.observe(cached);
        if (!fresh.empty())
            return fresh;
    }
    exhausted = true;
    return {};
}

void TuningSession::measureBatch(ProposedBatch batch) {
    std::vector<Config> configs;
    configs.reserve(batch.indices.size());
    for (SearchSpace::Index index : batch.indices)
        configs.push_back(m_space.config(index));
    std::vector<Measurement> measurements = matchedMeasurements(
        fmt::format("{} backend", m_backend.name()), m_backend.measure(configs), batch.indices.size());
    recordBatch(std::move(batch), std::move(measurements));
}

void TuningSession::recordBatch(ProposedBatch batch, std::vector<Measurement> measurements) {
    std::size_t first = m_trials.size();
    const std::size_t count = batch.indices.size();
    for (std::size_t i = 0; i < count; ++i) {
        Trial trial;
        trial.number = static_cast<std::int64_t>(m_trials.size());
        trial.index = batch.indices[i];
        trial.config = m_space.config(batch.indices[i]);
        trial.measurement = std::move(measurements[i]);
        trial.predicted = batch.predictions[i];
        trial.batch = batch.number;
        trial.elapsedS = elapsed();
        trial.strategyMs = batch.strategyMs / static_cast<double>(count);
        trial.finishedAt = unixSeconds();
        record(std::move(trial));
        for (SessionObserver* observer : m_observers)
            observer->trialFinished(m_trials.back());
        if (m_best && *m_best == m_trials.size() - 1)
            for (SessionObserver* observer : m_observers)
                observer->bestImproved(m_trials.back());
    }
    m_strategy.observe(std::span<const Trial>(m_trials).subspan(first));
    SessionProgress snapshot = progressNow();
    for (SessionObserver* observer : m_observers)
        observer->progress(snapshot);
}

void TuningSession::record(Trial trial) {
    m_byIndex[trial.index] = m_trials.size();
    m_trials.push_back(std::move(trial));
    const Trial& added = m_trials.back();
    if (added.measurement.status != MeasureStatus::Ok) {
        ++m_invalid;
        return;
    }
    if (!m_best || added.measurement.objective < m_trials[*m_best].measurement.objective) {
        m_best = m_trials.size() - 1;
        m_lastImprovement = static_cast<std::int64_t>(m_trials.size());
    }
}

std::optional<StopReason> TuningSession::stopReason() const {
    const StopCondition& stop = m_settings.stop;
    auto evaluations = static_cast<std::int64_t>(m_trials.size());
    if (m_cancelled)
        return StopReason::Cancelled;
    if (stop.maxEvaluations && evaluations >= *stop.maxEvaluations)
        return m_budgetCappedFrom ? StopReason::Exhausted : StopReason::Budget; // capped: the whole domain
    if (stop.targetObjective && m_best && m_trials[*m_best].measurement.objective <= *stop.targetObjective)
        return StopReason::Target;
    if (stop.patience && evaluations - m_lastImprovement >= *stop.patience)
        return StopReason::Patience;
    if (stop.maxSeconds && activeSeconds() >= *stop.maxSeconds)
        return StopReason::Time;
    return std::nullopt;
}

bool TuningSession::waitWhilePaused() {
    std::unique_lock lock(m_pauseMutex);
    if (m_paused && !m_cancelled) {
        const double pausedAt = monotonicSeconds();
        m_pauseChanged.wait(lock, [this] { return !m_paused || m_cancelled; });
        m_pausedS += monotonicSeconds() - pausedAt;
    }
    return !m_cancelled;
}

void TuningSession::pause() {
    std::lock_guard lock(m_pauseMutex);
    m_paused = true;
}

void TuningSession::resume() {
    {
        std::lock_guard lock(m_pauseMutex);
        m_paused = false;
    }
    m_pauseChanged.notify_all();
}

void TuningSession::cancel() {
    {
        std::lock_guard lock(m_pauseMutex);
        m_cancelled = true;
    }
    m_pauseChanged.notify_all();
}

SessionProgress TuningSession::progressNow() const {
    SessionProgress p;
    p.evaluations = static_cast<std::int64_t>(m_trials.size());
    p.budget = m_settings.stop.maxEvaluations;
    p.elapsedS = elapsed();
    if (m_best)
        p.best = m_trials[*m_best].measurement.objective;
    p.invalid = m_invalid;
    if (p.budget && p.evaluations > 0)
        p.etaS =
            p.elapsedS / static_cast<double>(p.evaluations) * static_cast<double>(*p.budget - p.evaluations);
    return p;
}

} // namespace ts
