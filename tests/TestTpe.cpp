#include "StrategyRun.h"
#include "analysis/RandomBaseline.h"
#include "backends/ReplayBackend.h"
#include "datasets/DatasetReader.h"
#include "session/TuningSession.h"
#include "strategies/ParzenEstimator.h"
#include "strategies/Tpe.h"
#include "util/Error.h"

#include "StatusCompare.h"

#include <QtTest>
#include <chrono>
#include <cmath>
#include <set>

using namespace ts;

using namespace ts::test;

namespace {

StrategyContext contextFor(const Dataset& dataset, SpaceMode mode, std::uint64_t seed,
                           const std::map<std::string, std::string>& given = {}) {
    return {&dataset.space, mode, seed, StrategyOptions("tpe", Tpe::optionTable(), given)};
}

RunOutcome runTpe(const std::shared_ptr<const Dataset>& dataset, SpaceMode mode, std::uint64_t seed,
                  std::int64_t budget, std::size_t batchSize = 8,
                  const std::map<std::string, std::string>& given = {}) {
    return runStrategy(std::make_unique<Tpe>(), contextFor(*dataset, mode, seed, given), dataset, budget,
                       batchSize);
}

} // namespace

class TestTpe : public QObject {
    Q_OBJECT

private slots:
    void optionTableHasTheDocumentedOptions() {
        std::set<std::string> names;
        for (const OptionSpec& spec : Tpe::optionTable()) {
            names.insert(spec.name);
            QVERIFY(!spec.description.empty());
        }
        for (const char* name :
             {"n_startup_trials", "n_ei_candidates", "gamma", "prior_weight", "multivariate"})
            QVERIFY2(names.contains(name), name);
        // Every default parses as its type.
        StrategyOptions defaults("tpe", Tpe::optionTable(), {});
        QCOMPARE(defaults.integer("n_startup_trials"), std::int64_t{10});
        QCOMPARE(defaults.integer("n_ei_candidates"), std::int64_t{24});
    }

    void rejectsAnUnknownInvalidPolicy() {
        auto dataset = test::syntheticDataset();
        Tpe tpe;
        QVERIFY_THROWS_EXCEPTION(
            Error, tpe.reset(contextFor(*dataset, SpaceMode::Product, 0, {{"invalid", "maybe"}})));
    }

    void axesFollowTheParameterKinds() {
        Parameter powers{"p", ParameterType::Integer, {std::int64_t{1}, std::int64_t{4}, std::int64_t{8}}};
        auto axis = ParzenEstimator::Axis::of(powers, true);
        QVERIFY(!axis.categorical);
        QCOMPARE(axis.centre, (std::vector<double>{0.0, 2.0, 3.0}));
        QCOMPARE(axis.lowEdge, -1.0);
        QCOMPARE(axis.highEdge, 3.5);
        auto positions = ParzenEstimator::Axis::of(powers, false);
        QCOMPARE(positions.centre, (std::vector<double>{0.0, 1.0, 2.0}));
        Parameter names{"s", ParameterType::String, {std::string("a"), std::string("b")}};
        QVERIFY(ParzenEstimator::Axis::of(names, true).categorical);
        Parameter flags{"b", ParameterType::Bool, {false, true}};
        QVERIFY(ParzenEstimator::Axis::of(flags, true).categorical);
    }

    void estimatorFavoursItsObservations_data() {
        QTest::addColumn<bool>("multivariate");
        QTest::newRow("univariate") << false;
        QTest::newRow("multivariate") << true;
    }
    void estimatorFavoursItsObservations() {
        QFETCH(bool, multivariate);
        std::vector<ParzenEstimator::Axis> axes;
        axes.push_back(
            ParzenEstimator::Axis::of({"x",
                                       ParameterType::Integer,
                                       {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{4}}},
                                      true));
        axes.push_back(ParzenEstimator::Axis::of(
            {"z", ParameterType::String, {std::string("a"), std::string("b"), std::string("c")}}, true));
        std::vector<std::uint32_t> near{0, 2};
        std::vector<std::span<const std::uint32_t>> observations{near, near, near};
        ParzenEstimator::Settings settings;
        settings.multivariate = multivariate;
        ParzenEstimator estimator(axes, observations, {1.0, 1.0, 1.0}, settings);
        // Probabilities over the 12 configs sum to one, and the observed config is the most likely.
        double total = 0.0;
        double best = -INFINITY;
        std::vector<std::uint32_t> argmax;
        for (std::uint32_t x = 0; x < 4; ++x)
            for (std::uint32_t z = 0; z < 3; ++z) {
                std::vector<std::uint32_t> digits{x, z};
                const double logP = estimator.logDensity(digits);
                total += std::exp(logP);
                if (logP > best) {
                    best = logP;
                    argmax = digits;
                }
            }
        QVERIFY(std::abs(total - 1.0) < 1e-9);
        QCOMPARE(argmax, near);
        std::mt19937_64 rng(1);
        std::vector<std::uint32_t> digits;
        int hits = 0;
        for (int k = 0; k < 1000; ++k) {
            estimator.sample(rng, digits);
            QVERIFY(digits[0] < 4 && digits[1] < 3);
            hits += digits == near;
        }
        QVERIFY(hits > 200);
    }

    void neverProposesTwiceAndKeepsTheBudget_data() { addModes(); }
    void neverProposesTwiceAndKeepsTheBudget() {
        QFETCH(SpaceMode, mode);
        auto dataset = test::syntheticDataset();
        for (std::size_t batchSize : {std::size_t{1}, std::size_t{8}, std::size_t{13}}) {
            RunOutcome run = runTpe(dataset, mode, 3, 40, batchSize);
            COMPARE_STATUS(run.reason, StopReason::Budget);
            QCOMPARE(run.trials.size(), std::size_t{40});
            QVERIFY(unique(run.proposed));
            QVERIFY(!run.tooLarge);
            for (SearchSpace::Index index : run.proposed)
                QVERIFY(mode == SpaceMode::Product ? index < dataset->space.productSize()
                                                   : dataset->space.isValid(index));
        }
    }

    void proposesTheWholeDomainThenNothing_data() { addModes(); }
    void proposesTheWholeDomainThenNothing() {
        QFETCH(SpaceMode, mode);
        auto dataset = test::syntheticDataset();
        RunOutcome run = runTpe(dataset, mode, 5, 1000);
        COMPARE_STATUS(run.reason, StopReason::Exhausted);
        QCOMPARE(run.trials.size(), std::size_t(dataset->space.domainSize(mode)));
        QVERIFY(unique(run.proposed));
    }

    void deterministicPerSeed_data() { addModes(); }
    void deterministicPerSeed() {
        QFETCH(SpaceMode, mode);
        auto dataset = std::make_shared<const Dataset>(
            readDataset(TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz"));
        RunOutcome a = runTpe(dataset, mode, 11, 60);
        RunOutcome b = runTpe(dataset, mode, 11, 60);
        RunOutcome c = runTpe(dataset, mode, 12, 60);
        QCOMPARE(a.proposed, b.proposed);
        QVERIFY(a.proposed != c.proposed);
    }

    void beatsRandomSamplingOnGemmInProductMode() {
        auto dataset = std::make_shared<const Dataset>(
            readDataset(TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz"));
        constexpr int kSeeds = 10;
        constexpr std::int64_t kBudget = 200;
        const double optimum = *dataset->optimum();
        double mean = 0.0;
        for (int seed = 0; seed < kSeeds; ++seed) {
            RunOutcome run = runTpe(dataset, SpaceMode::Product, std::uint64_t(seed), kBudget);
            QCOMPARE(run.trials.size(), std::size_t(kBudget));
            QVERIFY(unique(run.proposed));
            mean += fractionOfOptimum(run.trials, optimum) / kSeeds;
        }
        std::vector<double> objectives;
        for (const auto& [index, measurement] : dataset->entries)
            if (measurement.status == MeasureStatus::Ok)
                objectives.push_back(measurement.objective);
        const double random = RandomBaseline(dataset->space.domainSize(SpaceMode::Product), objectives)
                                  .expectedFraction(kBudget);
        QVERIFY2(mean > random, qPrintable(QString("tpe %1, random %2").arg(mean).arg(random)));
    }

    void proposesFreshConfigsAfterManyObservations() {
        auto dataset = std::make_shared<const Dataset>(
            readDataset(TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz"));
        Tpe tpe;
        tpe.reset(contextFor(*dataset, SpaceMode::Product, 1));
        ReplayBackend backend(dataset);
        std::int64_t number = 0;
        std::set<SearchSpace::Index> proposed;
        while (number < 400) {
            auto batch = tpe.propose(8);
            proposed.insert(batch.begin(), batch.end());
            std::vector<Config> configs;
            for (SearchSpace::Index index : batch)
                configs.push_back(dataset->space.config(index));
            auto measurements = backend.measure(configs);
            std::vector<Trial> trials;
            for (std::size_t k = 0; k < batch.size(); ++k) {
                Trial trial;
                trial.number = number++;
                trial.index = batch[k];
                trial.config = configs[k];
                trial.measurement = measurements[k];
                trials.push_back(trial);
            }
            tpe.observe(trials);
        }
        // After 400 observations a batch is still 8 configs never proposed before. What a proposal costs is
        // measured by bench_overhead (docs/benchmarks.md, "Strategy overhead"), not by a timed test.
        const std::vector<SearchSpace::Index> next = tpe.propose(8);
        QCOMPARE(next.size(), std::size_t{8});
        QCOMPARE(std::set<SearchSpace::Index>(next.begin(), next.end()).size(), std::size_t{8});
        for (SearchSpace::Index index : next)
            QVERIFY(!proposed.count(index));
    }
};

QTEST_APPLESS_MAIN(TestTpe)
#include "TestTpe.moc"
