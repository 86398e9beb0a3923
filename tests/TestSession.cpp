#include "SyntheticDataset.h"
#include "backends/ReplayBackend.h"
#include "datasets/DatasetReader.h"
#include "session/TuningSession.h"
#include "strategies/StrategyRegistry.h"

#include "StatusCompare.h"

#include <QtTest>
#include <optional>
#include <set>
#include <thread>

using namespace ts;

namespace {

// Proposes a fixed script of indices, one batch per call; records what it was told.
class ScriptedStrategy : public Strategy {
public:
    explicit ScriptedStrategy(std::vector<std::vector<SearchSpace::Index>> batches)
        : m_batches(std::move(batches)) {}
    std::string name() const override { return "scripted"; }
    void reset(const StrategyContext&) override { m_next = 0; }
    std::vector<SearchSpace::Index> propose(std::size_t maxCount) override {
        maxCounts.push_back(maxCount);
        if (m_next >= m_batches.size())
            return {};
        return m_batches[m_next++];
    }
    void observe(std::span<const Trial> trials) override {
        for (const Trial& t : trials)
            told.push_back(t.index);
    }
    std::vector<SearchSpace::Index> told;
    std::vector<std::size_t> maxCounts;

private:
    std::vector<std::vector<SearchSpace::Index>> m_batches;
    std::size_t m_next = 0;
};

// Counts callbacks and can act on the session from inside a callback.
class Recorder : public SessionObserver {
public:
    std::function<void(const SessionProgress&)> onProgress;
    void trialFinished(const Trial& t) override { trials.push_back(t.number); }
    void bestImproved(const Trial& t) override { improvements.push_back(t.measurement.objective); }
    void progress(const SessionProgress& p) override {
        last = p;
        if (onProgress)
            onProgress(p);
    }
    void finished(SessionStatus s, StopReason r) override {
        status = s;
        reason = r;
        ++finishedCalls;
    }
    std::vector<std::int64_t> trials;
    std::vector<double> improvements;
    SessionProgress last;
    SessionStatus status = SessionStatus::Running;
    StopReason reason = StopReason::None;
    int finishedCalls = 0;
};

std::unique_ptr<Strategy> makeStrategy(const std::string& name, const Dataset& d, SpaceMode mode,
                                       std::uint64_t seed) {
    auto s = StrategyRegistry::builtin().create(name);
    s->reset({&d.space, mode, seed, StrategyRegistry::builtin().options(name, {})});
    return s;
}

// A pool of `slots` that finishes the batch submitted last first: results come back in the opposite order of
// their dealing, the hardest order for the loop. Measures with a replay backend when asked.
class LifoPool : public MeasurePool {
public:
    LifoPool(ReplayBackend& backend, const SearchSpace& space, std::size_t slotCount)
        : m_backend(backend), m_space(space), m_slots(slotCount) {}
    std::size_t freeSlots() const override { return m_slots - m_inFlight.size(); }
    void submit(std::int64_t ticket, std::span<const SearchSpace::Index> batch) override {
        m_inFlight.emplace_back(ticket, std::vector<SearchSpace::Index>(batch.begin(), batch.end()));
        submitted += batch.size();
        mostInFlight = std::max(mostInFlight, m_inFlight.size());
    }
    std::optional<Completed> waitAny(const std::function<bool()>& stop) override {
        if (stop())
            return std::nullopt;
        auto [ticket, indices] = m_inFlight.back();
        m_inFlight.pop_back();
        std::vector<Config> configs;
        for (SearchSpace::Index index : indices)
            configs.push_back(m_space.config(index));
        return Completed{ticket, m_backend.measure(configs)};
    }
    std::optional<Completed> poll() override { return std::nullopt; } // only when waited for
    std::size_t submitted = 0;
    std::size_t mostInFlight = 0;

private:
    ReplayBackend& m_backend;
    const SearchSpace& m_space;
    std::size_t m_slots;
    std::vector<std::pair<std::int64_t, std::vector<SearchSpace::Index>>> m_inFlight;
};

} // namespace

class TestSession : public QObject {
    Q_OBJECT

private slots:
    void resumedSessionGoesOnPastItsOwnHistory() {
        // A deterministic strategy resumed with one config per batch first walks through the configs it
        // measured before the interruption (more of them than the session's patience for repeated proposals
        // alone): the session must go on to its budget, measure nothing twice and continue the same sequence.
        auto dataset = std::make_shared<const Dataset>(
            readDataset(TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz"));
        const StrategyRegistry& registry = StrategyRegistry::builtin();
        for (const std::string name : {"random_sample", "simulated_annealing"}) {
            auto run = [&](std::int64_t budget, std::vector<Trial> preload) {
                auto strategy = registry.create(name);
                strategy->reset({&dataset->space, SpaceMode::Constrained, 3, registry.options(name, {})});
                ReplayBackend backend(dataset);
                SessionSettings settings;
                settings.batchSize = 1;
                settings.stop.maxEvaluations = budget;
                TuningSession session(dataset->space, backend, *strategy, settings);
                session.preload(std::move(preload));
                StopReason reason = session.run();
                return std::make_pair(reason, session.trials());
            };
            auto [firstReason, first] = run(1500, {});
            COMPARE_STATUS(firstReason, StopReason::Budget);
            auto [reason, resumed] = run(1600, first);
            COMPARE_STATUS(reason, StopReason::Budget);
            QCOMPARE(resumed.size(), std::size_t{1600});
            std::set<SearchSpace::Index> unique;
            for (const Trial& t : resumed)
                unique.insert(t.index);
            QCOMPARE(unique.size(), resumed.size());
            if (name == "random_sample") {
                auto [wholeReason, whole] = run(1600, {});
                for (std::size_t i = 0; i < whole.size(); ++i)
                    QCOMPARE(resumed[i].index, whole[i].index);
            }
        }
    }

    void budgetCountsUniqueConfigs() {
        auto dataset = test::syntheticDataset();
        ReplayBackend backend(dataset);
        ScriptedStrategy strategy({{1, 2, 3}, {2, 3}, {3, 4, 1}, {6, 7, 8, 9}});
        SessionSettings settings;
        settings.stop.maxEvaluations = 6;
        TuningSession session(dataset->space, backend, strategy, settings);
        Recorder recorder;
        session.addObserver(&recorder);
        COMPARE_STATUS(session.run(), StopReason::Budget);
        std::vector<SearchSpace::Index> measured;
        for (const Trial& t : session.trials())
            measured.push_back(t.index);
        QVERIFY((measured == std::vector<SearchSpace::Index>{1, 2, 3, 4, 6, 7}));
        // Repeated proposals are told again from the cache, not measured.
        QCOMPARE(std::count(strategy.told.begin(), strategy.told.end(), SearchSpace::Index(3)), 3);
        QCOMPARE(recorder.trials.size(), std::size_t{6});
        QCOMPARE(recorder.finishedCalls, 1);
        COMPARE_STATUS(recorder.status, SessionStatus::Completed);
        // The last batch may only ask for what is left of the budget.
        QCOMPARE(strategy.maxCounts.back(), std::size_t{2});
    }

    // TuningSession::run(MeasurePool&): every free slot gets a batch, results are recorded in completion
    // order, the budget counts the configs in flight (never exceeded, nothing twice), and the strategy hears
    // of every trial.
    void pooledLoopDealsEverySlotAndKeepsTheBudget() {
        auto dataset = std::make_shared<const Dataset>(
            readDataset(TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz"));
        for (const std::string name : {"random_sample", "xgb"}) {
            auto strategy = makeStrategy(name, *dataset, SpaceMode::Constrained, 5);
            ReplayBackend backend(dataset);
            LifoPool pool(backend, dataset->space, 3);
            SessionSettings settings;
            settings.batchSize = 4;
            settings.stop.maxEvaluations = 50;
            TuningSession session(dataset->space, backend, *strategy, settings);
            Recorder recorder;
            session.addObserver(&recorder);
            COMPARE_STATUS(session.run(pool), StopReason::Budget);
            QCOMPARE(session.trials().size(), std::size_t{50});
            QCOMPARE(pool.submitted, std::size_t{50});
            QCOMPARE(pool.mostInFlight, std::size_t{3});
            std::set<SearchSpace::Index> unique;
            for (const Trial& t : session.trials())
                unique.insert(t.index);
            QCOMPARE(unique.size(), std::size_t{50});
            // The first results are those of the last batch dealt, numbered in the order they came back:
            // the third for random search; the second for xgb, whose start-up deals its five random draws
            // (a batch of 4, then 1) and waits to hear of them.
            QCOMPARE(session.trials().front().batch, std::int64_t{name == "xgb" ? 1 : 2});
            QCOMPARE(session.trials().front().number, std::int64_t{0});
            QCOMPARE(recorder.trials.size(), std::size_t{50});
            COMPARE_STATUS(recorder.status, SessionStatus::Completed);
        }
    }

    // With many batches in flight, xgb's start-up is as long as in a single process: its random draws in
    // flight count, so the model takes over after startup_min of them, not after one start-up per slot.
    void pooledStartupDrawsAsManyAsOneProcess() {
        auto dataset = std::make_shared<const Dataset>(
            readDataset(TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz"));
        auto unpredicted = [&](bool pooled) {
            auto strategy = makeStrategy("xgb", *dataset, SpaceMode::Constrained, 3);
            ReplayBackend backend(dataset);
            SessionSettings settings;
            settings.stop.maxEvaluations = 40;
            TuningSession session(dataset->space, backend, *strategy, settings);
            LifoPool pool(backend, dataset->space, 8);
            pooled ? session.run(pool) : session.run();
            std::size_t count = 0; // start-up draws (and epsilon's random picks) carry no prediction
            for (const Trial& t : session.trials())
                count += !t.predicted.has_value();
            return count;
        };
        const std::size_t single = unpredicted(false), pooled = unpredicted(true);
        QVERIFY2(single >= 5 && pooled <= single + 3,
                 qPrintable(QString("%1 trials without a prediction on 8 slots, %2 in one process")
                                .arg(pooled)
                                .arg(single)));
    }

    // A strategy with nothing to propose while batches are in flight is waited on, not taken for exhausted;
    // cancel() gives up the batches in flight.
    void pooledLoopWaitsForTheStrategyAndCancelGivesUp() {
        auto dataset = test::syntheticDataset();
        ReplayBackend backend(dataset);
        {
            ScriptedStrategy strategy({{1, 2}, {}, {3, 4}});
            LifoPool pool(backend, dataset->space, 2);
            TuningSession session(dataset->space, backend, strategy, SessionSettings{});
            COMPARE_STATUS(session.run(pool), StopReason::Exhausted);
            QCOMPARE(session.trials().size(), std::size_t{4});
            QCOMPARE(strategy.told.size(), std::size_t{4});
        }
        {
            ScriptedStrategy strategy({{1, 2}, {3, 4}, {5, 6}, {7, 8}});
            LifoPool pool(backend, dataset->space, 3);
            TuningSession session(dataset->space, backend, strategy, SessionSettings{});
            Recorder recorder;
            recorder.onProgress = [&](const SessionProgress&) { session.cancel(); };
            session.addObserver(&recorder);
            COMPARE_STATUS(session.run(pool), StopReason::Cancelled);
            QCOMPARE(session.trials().size(), std::size_t{2}); // the first result; the other two given up
            COMPARE_STATUS(recorder.status, SessionStatus::Cancelled);
        }
    }

    void invalidConfigsCostBudget() {
        auto dataset = test::syntheticDataset(5);
        ReplayBackend backend(dataset);
        ScriptedStrategy strategy({{0, 5, 10, 1}});
        SessionSettings settings;
        settings.stop.maxEvaluations = 4;
        TuningSession session(dataset->space, backend, strategy, settings);
        Recorder recorder;
        session.addObserver(&recorder);
        session.run();
        QCOMPARE(recorder.last.evaluations, std::int64_t{4});
        QCOMPARE(recorder.last.invalid, std::int64_t{3});
        QVERIFY(session.best() != nullptr);
        QCOMPARE(session.best()->index, SearchSpace::Index(1));
    }

    void exhaustedWhenStrategyRunsDry() {
        auto dataset = test::syntheticDataset();
        ReplayBackend backend(dataset);
        auto strategy = makeStrategy("brute_force", *dataset, SpaceMode::Product, 0);
        SessionSettings settings;
        settings.mode = SpaceMode::Product;
        settings.stop.maxEvaluations = 1000;
        TuningSession session(dataset->space, backend, *strategy, settings);
        COMPARE_STATUS(session.run(), StopReason::Exhausted);
        QCOMPARE(session.trials().size(), std::size_t(dataset->space.productSize()));
        QCOMPARE(session.best()->measurement.objective, *dataset->optimum());
    }

    void stopsOnTargetAndPatience() {
        auto dataset = test::syntheticDataset();
        ReplayBackend backend(dataset);
        {
            auto strategy = makeStrategy("brute_force", *dataset, SpaceMode::Product, 0);
            SessionSettings settings;
            settings.batchSize = 1;
            settings.stop.targetObjective = *dataset->optimum();
            TuningSession session(dataset->space, backend, *strategy, settings);
            COMPARE_STATUS(session.run(), StopReason::Target);
            QCOMPARE(session.trials().back().measurement.objective, *dataset->optimum());
        }
        {
            auto strategy = makeStrategy("brute_force", *dataset, SpaceMode::Product, 0);
            SessionSettings settings;
            settings.batchSize = 1;
            settings.stop.patience = 5;
            TuningSession session(dataset->space, backend, *strategy, settings);
            COMPARE_STATUS(session.run(), StopReason::Patience);
            // Brute force measures indices in order: stop at the first n with n - (last improvement) >= 5.
            double best = 1e300;
            std::size_t lastImprovement = 0, expected = 0;
            for (std::size_t n = 1; n <= dataset->space.productSize(); ++n) {
                const Measurement& m = dataset->entries.at(n - 1);
                if (m.status == MeasureStatus::Ok && m.objective < best) {
                    best = m.objective;
                    lastImprovement = n;
                }
                if (n - lastImprovement >= 5) {
                    expected = n;
                    break;
                }
            }
            QVERIFY(expected > 0);
            QCOMPARE(session.trials().size(), expected);
        }
    }

    void bestImprovementsAreMonotonic() {
        auto dataset = test::syntheticDataset();
        ReplayBackend backend(dataset);
        auto strategy = makeStrategy("random_sample", *dataset, SpaceMode::Product, 7);
        SessionSettings settings;
        settings.mode = SpaceMode::Product;
        settings.stop.maxEvaluations = 30;
        TuningSession session(dataset->space, backend, *strategy, settings);
        Recorder recorder;
        session.addObserver(&recorder);
        session.run();
        QVERIFY(!recorder.improvements.empty());
        for (std::size_t i = 1; i < recorder.improvements.size(); ++i)
            QVERIFY(recorder.improvements[i] < recorder.improvements[i - 1]);
        QCOMPARE(recorder.improvements.back(), session.best()->measurement.objective);
    }

    void cancelFromAnObserver() {
        auto dataset = test::syntheticDataset();
        ReplayBackend backend(dataset);
        auto strategy = makeStrategy("random_sample", *dataset, SpaceMode::Product, 1);
        SessionSettings settings;
        settings.batchSize = 4;
        settings.stop.maxEvaluations = 50;
        TuningSession session(dataset->space, backend, *strategy, settings);
        Recorder recorder;
        recorder.onProgress = [&](const SessionProgress& p) {
            if (p.evaluations >= 8)
                session.cancel();
        };
        session.addObserver(&recorder);
        COMPARE_STATUS(session.run(), StopReason::Cancelled);
        QCOMPARE(session.trials().size(), std::size_t{8});
        COMPARE_STATUS(recorder.status, SessionStatus::Cancelled);
    }

    // Pause holds the loop between batches until resume; cancel releases a paused session.
    void pauseResumeAndCancelFromAnotherThread() {
        auto dataset = test::syntheticDataset();
        ReplayBackend backend(dataset);
        auto strategy = makeStrategy("random_sample", *dataset, SpaceMode::Product, 1);
        SessionSettings settings;
        settings.batchSize = 2;
        settings.stop.maxEvaluations = 40;
        TuningSession session(dataset->space, backend, *strategy, settings);
        std::mutex mutex;
        std::condition_variable changed;
        std::int64_t seen = 0;
        Recorder recorder;
        recorder.onProgress = [&](const SessionProgress& p) {
            if (p.evaluations == 6)
                session.pause();
            std::lock_guard lock(mutex);
            seen = p.evaluations;
            changed.notify_all();
        };
        session.addObserver(&recorder);
        std::thread runner([&] { session.run(); });
        {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return seen == 6; });
        }
        QVERIFY(session.isPaused());
        // While paused, no further batch runs: the count stays at 6 until resumed.
        QCOMPARE(session.trials().size(), std::size_t{6});
        recorder.onProgress = [&](const SessionProgress& p) {
            if (p.evaluations == 10)
                session.pause();
            std::lock_guard lock(mutex);
            seen = p.evaluations;
            changed.notify_all();
        };
        session.resume();
        {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return seen == 10; });
        }
        session.cancel();
        runner.join();
        QCOMPARE(session.trials().size(), std::size_t{10});
        COMPARE_STATUS(recorder.reason, StopReason::Cancelled);
    }

    // Time spent paused is not running time: the trials after a pause are stamped as if it had not
    // happened, and the ETA after it extrapolates from the running time only.
    void pausedTimeIsNotElapsed() {
        auto dataset = test::syntheticDataset();
        ReplayBackend backend(dataset);
        auto strategy = makeStrategy("random_sample", *dataset, SpaceMode::Product, 1);
        SessionSettings settings;
        settings.batchSize = 2;
        settings.stop.maxEvaluations = 20;
        TuningSession session(dataset->space, backend, *strategy, settings);
        std::mutex mutex;
        std::condition_variable changed;
        std::int64_t seen = 0;
        std::optional<double> etaAfterPause;
        Recorder recorder;
        recorder.onProgress = [&](const SessionProgress& p) {
            if (p.evaluations == 6)
                session.pause();
            std::lock_guard lock(mutex);
            if (p.evaluations == 8)
                etaAfterPause = p.etaS;
            seen = p.evaluations;
            changed.notify_all();
        };
        session.addObserver(&recorder);
        std::thread runner([&] { session.run(); });
        {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return seen == 6; });
        }
        constexpr auto kPause = std::chrono::milliseconds(600); // the user's pause, not a wait for luck
        std::this_thread::sleep_for(kPause);
        session.resume();
        runner.join();
        QCOMPARE(session.trials().size(), std::size_t{20});
        // Replayed trials take microseconds: the whole pause would show as a gap of 0.6 s.
        const double gap = session.trials()[6].elapsedS - session.trials()[5].elapsedS;
        QVERIFY2(gap < 0.3, qPrintable(QString("gap across the pause %1 s").arg(gap)));
        std::lock_guard lock(mutex);
        QVERIFY(etaAfterPause.has_value());
        QVERIFY2(*etaAfterPause < 0.3, qPrintable(QString("ETA after the pause %1 s").arg(*etaAfterPause)));
    }

    void preloadedTrialsAreNotMeasuredAgain() {
        auto dataset = test::syntheticDataset();
        ReplayBackend backend(dataset);
        std::vector<Trial> earlier;
        {
            auto strategy = makeStrategy("brute_force", *dataset, SpaceMode::Product, 0);
            SessionSettings settings;
            settings.stop.maxEvaluations = 10;
            TuningSession session(dataset->space, backend, *strategy, settings);
            session.run();
            earlier = session.trials();
        }
        auto strategy = makeStrategy("brute_force", *dataset, SpaceMode::Product, 0);
        SessionSettings settings;
        settings.stop.maxEvaluations = 25;
        TuningSession session(dataset->space, backend, *strategy, settings);
        session.preload(earlier);
        session.run();
        QCOMPARE(session.trials().size(), std::size_t{25});
        std::set<SearchSpace::Index> unique;
        for (const Trial& t : session.trials())
            unique.insert(t.index);
        QCOMPARE(unique.size(), std::size_t{25});
    }
};

QTEST_APPLESS_MAIN(TestSession)
#include "TestSession.moc"
