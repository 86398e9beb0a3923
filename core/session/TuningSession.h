#pragma once

#include "backends/Backend.h"
#include "session/MeasurePool.h"
#include "session/SessionObserver.h"
#include "session/StopCondition.h"
#include "strategies/Strategy.h"

#include <atomic>
#include <condition_variable>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <vector>

namespace ts {

struct SessionSettings {
    SpaceMode mode = SpaceMode::Constrained;
    // maxSeconds counts the running time of this run (from run(), less the time spent paused), not the time
    // of trials preloaded from an earlier run: a resumed session gets its own time limit. The other
    // conditions count the whole session.
    StopCondition stop;
    std::size_t batchSize = 8; // most configs asked of the strategy at once
};

// The tuning loop: propose -> measure -> observe, with stop conditions, pause/resume/cancel between
// batches and observer callbacks. The budget counts unique evaluated configs: a config proposed again is
// served from the session cache and not measured or counted twice.
//
// run() blocks the calling thread; pause(), resume() and cancel() may be called from any thread.
class TuningSession {
public:
    // The space, backend and strategy must outlive the session. The strategy must already be reset. A budget
    // larger than the domain of the settings' mode is capped at the domain's size (budgetCappedFrom() tells
    // the caller, which says so), so that progress and its ETA count towards what can really be evaluated.
    TuningSession(const SearchSpace& space, Backend& backend, Strategy& strategy, SessionSettings settings);

    void addObserver(SessionObserver* observer) { m_observers.push_back(observer); }
    // Before the observers added so far: the records writer, so that a trial is committed before anyone
    // else hears of it.
    void addObserverFirst(SessionObserver* observer) { m_observers.insert(m_observers.begin(), observer); }
    // Trials already measured (e.g. by an interrupted session being resumed): they count against the
    // budget, are told to the strategy, and are not measured again.
    void preload(std::vector<Trial> trials);

    StopReason run();
    // The loop with measurement dealt to a pool (an MPI job's ranks) instead of the backend: a batch goes to
    // every free slot as soon as it frees up, the strategy is told of results in the order they complete,
    // and trials are numbered in that order. The budget counts unique configs, those in flight included, so
    // it is never exceeded and no config is measured twice. A stop condition met deals nothing more and
    // waits for the batches in flight; cancel() gives them up.
    StopReason run(MeasurePool& pool);

    // The loop one batch at a time, for a caller that interleaves many sessions (a workload): start() once,
    // then step() until it returns why the session stopped (or the caller has had enough), then finish()
    // to tell the observers. run() is exactly this. A step measures at most `maxEvaluations` configs (and
    // at most the batch size); nullopt means the session can go on.
    void start();
    std::optional<StopReason> step(std::size_t maxEvaluations = std::numeric_limits<std::size_t>::max());
    void finish(StopReason reason);

    // The loop with measurement elsewhere, driven by the caller (run(MeasurePool&) is this; a workload over
    // an MPI job deals its tasks' batches this way): after start(), deal() proposes the next batch of at
    // most `maxEvaluations` fresh configs (none measured, none in flight) and holds it in flight until
    // complete() brings its measurements. nullopt when nothing is to be dealt now: a stop condition is met,
    // the budget is in flight, or the strategy has no fresh config (strategyDry(); it may have more once it
    // hears of the batches in flight, so the session is exhausted only when it is dry with none in flight).
    struct Dealt {
        std::int64_t ticket = 0; // what complete() is given back
        std::vector<SearchSpace::Index> indices;
    };
    std::optional<Dealt> deal(std::size_t maxEvaluations = std::numeric_limits<std::size_t>::max());
    // The measurements of a dealt batch, one per config in its order (missing ones become RuntimeFailed):
    // its trials are recorded and told to the strategy and the observers. Throws Error for a ticket that
    // is not in flight.
    void complete(std::int64_t ticket, std::vector<Measurement> measurements);
    std::size_t batchesInFlight() const { return m_inFlight.size(); }
    bool strategyDry() const { return m_strategyDry; }
    // Why the session should stop now (budget, target, patience, time, cancel), nullopt while it goes on.
    std::optional<StopReason> stopReason() const;

    void pause();
    void resume();
    void cancel();
    bool isPaused() const { return m_paused; }

    // The budget in force (after the cap), nullopt without one.
    std::optional<std::int64_t> budget() const { return m_settings.stop.maxEvaluations; }
    // The budget asked for when it was capped at the domain's size, else nullopt.
    std::optional<std::int64_t> budgetCappedFrom() const { return m_budgetCappedFrom; }

    const std::vector<Trial>& trials() const { return m_trials; }
    const Trial* best() const;

private:
    std::vector<SearchSpace::Index> nextBatch(std::size_t maxCount, bool& exhausted);
    // A batch proposed and not yet recorded: what its trials are stamped with.
    struct ProposedBatch {
        std::vector<SearchSpace::Index> indices;
        std::int64_t number = 0;
        double strategyMs = 0.0;
        std::vector<std::optional<double>> predictions; // the strategy's, made when it was proposed
    };
    // The next batch of at most maxCount fresh configs; nullopt when the strategy has none to give.
    std::optional<ProposedBatch> propose(std::size_t maxCount);
    void measureBatch(ProposedBatch batch);
    void recordBatch(ProposedBatch batch, std::vector<Measurement> measurements);
    void record(Trial trial);
    bool waitWhilePaused();
    SessionProgress progressNow() const;
    // Seconds of the whole session (the preloaded trials' included) and of this run, paused time left out:
    // what trials are stamped with and what the ETA extrapolates from.
    double elapsed() const;
    double activeSeconds() const;

    const SearchSpace& m_space;
    Backend& m_backend;
    Strategy& m_strategy;
    SessionSettings m_settings;
    std::vector<SessionObserver*> m_observers;
    std::optional<std::int64_t> m_budgetCappedFrom;

    std::vector<Trial> m_trials;
    std::map<SearchSpace::Index, std::size_t> m_byIndex;
    std::map<std::int64_t, ProposedBatch> m_inFlight; // dealt batches by ticket
    std::set<SearchSpace::Index> m_inFlightIndices;
    std::size_t m_inFlightConfigs = 0;
    bool m_strategyDry = false;
    std::optional<std::size_t> m_best;
    std::int64_t m_lastImprovement = 0;
    std::int64_t m_invalid = 0;
    std::int64_t m_batches = 0;
    double m_startedAt = 0.0;
    double m_preloadedS = 0.0;
    double m_pausedS = 0.0; // of this run; the loop's thread only

    std::atomic<bool> m_cancelled{false};
    std::atomic<bool> m_paused{false};
    std::mutex m_pauseMutex;
    std::condition_variable m_pauseChanged;
};

} // namespace ts
