// A backend that breaks the one-result-per-config contract (tests/TestBackendConformance checks the real
// ones keep it): the session records every config of the batch anyway, with a failure that says which backend
// returned how many results for how many configs, never a silent Invalid with an empty log (which reads like
// a constraint violation), and never drops extra results without a word.
#include "backends/ReplayBackend.h"
#include "session/TuningSession.h"
#include "strategies/StrategyRegistry.h"

#include "StatusCompare.h"
#include "SyntheticDataset.h"

#include <QtTest>

using namespace ts;

namespace {

// Measures like the replay backend, then returns `change` results more (or fewer) than it was asked for.
class MiscountingBackend : public Backend {
public:
    MiscountingBackend(std::shared_ptr<const Dataset> dataset, int change)
        : m_replay(dataset), m_change(change) {}

    std::string name() const override { return "miscounting"; }
    std::string deviceFingerprint() const override { return m_replay.deviceFingerprint(); }
    DeviceFingerprint deviceDetails() const override { return m_replay.deviceDetails(); }
    std::vector<Measurement> measure(std::span<const Config> batch) override {
        std::vector<Measurement> results = m_replay.measure(batch);
        if (m_change < 0)
            results.resize(results.size() - std::min<std::size_t>(results.size(), -m_change));
        for (int extra = 0; extra < m_change; ++extra)
            results.push_back(results.front());
        return results;
    }

private:
    ReplayBackend m_replay;
    int m_change = 0;
};

struct BatchRun {
    std::vector<Trial> trials;
    std::vector<Measurement> expected; // what the replay backend says of the same configs
};

// One batch of 8 configs of the synthetic dataset, in brute-force order.
BatchRun runOneBatch(int change) {
    const auto dataset = test::syntheticDataset(0); // every config Ok
    MiscountingBackend backend(dataset, change);
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    auto strategy = registry.create("brute_force");
    strategy->reset({&dataset->space, SpaceMode::Constrained, 0, registry.options("brute_force", {})});
    SessionSettings settings;
    settings.batchSize = 8;
    settings.stop.maxEvaluations = 8;
    TuningSession session(dataset->space, backend, *strategy, settings);
    session.run();
    BatchRun run{session.trials(), {}};
    std::vector<Config> configs;
    for (const Trial& trial : run.trials)
        configs.push_back(trial.config);
    ReplayBackend replay(dataset);
    run.expected = replay.measure(configs);
    return run;
}

} // namespace

class TestBackendMismatch : public QObject {
    Q_OBJECT

private slots:
    // 3 results for 8 configs: the 3 are recorded as measured, the 5 others as RuntimeFailed, each with the
    // sentence naming the backend and the counts.
    void fewerResultsThanConfigsAreFailuresThatSaySo() {
        const BatchRun run = runOneBatch(-5);
        QCOMPARE(run.trials.size(), std::size_t{8});
        for (std::size_t i = 0; i < 3; ++i) {
            COMPARE_STATUS(run.trials[i].measurement.status, run.expected[i].status);
            QCOMPARE(run.trials[i].measurement.objective, run.expected[i].objective);
        }
        for (std::size_t i = 3; i < 8; ++i) {
            const Measurement& m = run.trials[i].measurement;
            COMPARE_STATUS(m.status, MeasureStatus::RuntimeFailed);
            QVERIFY2(m.log.find("the miscounting backend returned 3 measurements for 8 configs") !=
                         std::string::npos,
                     m.log.c_str());
        }
    }

    // No result at all: every config is a failure that says so.
    void noResultsAtAll() {
        const BatchRun run = runOneBatch(-8);
        QCOMPARE(run.trials.size(), std::size_t{8});
        for (const Trial& trial : run.trials) {
            COMPARE_STATUS(trial.measurement.status, MeasureStatus::RuntimeFailed);
            QVERIFY2(trial.measurement.log.find("returned 0 measurements for 8 configs") != std::string::npos,
                     trial.measurement.log.c_str());
        }
    }

    // 10 results for 8 configs: the first 8 are kept, and each trial's log says that 2 were dropped.
    void moreResultsThanConfigsAreNotDroppedSilently() {
        const BatchRun run = runOneBatch(2);
        QCOMPARE(run.trials.size(), std::size_t{8});
        for (std::size_t i = 0; i < 8; ++i) {
            const Measurement& m = run.trials[i].measurement;
            COMPARE_STATUS(m.status, run.expected[i].status);
            QCOMPARE(m.objective, run.expected[i].objective);
            QVERIFY2(
                m.log.find("the miscounting backend returned 10 measurements for 8 configs; the last 2 were "
                           "dropped") != std::string::npos,
                m.log.c_str());
        }
    }

    // A backend that keeps the contract leaves the logs as it wrote them.
    void aMatchingBackendIsLeftAlone() {
        const BatchRun run = runOneBatch(0);
        QCOMPARE(run.trials.size(), std::size_t{8});
        for (std::size_t i = 0; i < 8; ++i) {
            COMPARE_STATUS(run.trials[i].measurement.status, run.expected[i].status);
            QCOMPARE(run.trials[i].measurement.log, run.expected[i].log);
        }
    }
};

QTEST_GUILESS_MAIN(TestBackendMismatch)
#include "TestBackendMismatch.moc"
