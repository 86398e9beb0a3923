#include "SparseDataset.h"
#include "SyntheticDataset.h"
#include "analysis/RandomBaseline.h"
#include "backends/ReplayBackend.h"
#include "datasets/DatasetReader.h"
#include "session/TuningSession.h"
#include "strategies/DualAnnealing.h"
#include "strategies/GeneticAlgorithm.h"
#include "strategies/GreedyIls.h"
#include "strategies/SimulatedAnnealing.h"
#include "util/Error.h"

#include <QtTest>
#include <cmath>
#include <functional>
#include <set>

using namespace ts;

namespace {

using Factory = std::function<std::unique_ptr<Strategy>()>;

struct Classic {
    const char* name;
    Factory create;
    std::vector<OptionSpec> table;
};

const std::vector<Classic>& classics() {
    static const std::vector<Classic> all{
        {"simulated_annealing", [] { return std::make_unique<SimulatedAnnealing>(); },
         SimulatedAnnealing::optionTable()},
        {"genetic_algorithm", [] { return std::make_unique<GeneticAlgorithm>(); },
         GeneticAlgorithm::optionTable()},
        {"greedy_ils", [] { return std::make_unique<GreedyIls>(); }, GreedyIls::optionTable()},
        {"dual_annealing", [] { return std::make_unique<DualAnnealing>(); }, DualAnnealing::optionTable()},
    };
    return all;
}

const Classic& classic(const QString& name) {
    for (const Classic& c : classics())
        if (name == c.name)
            return c;
    throw Error("no such strategy");
}

std::unique_ptr<Strategy> make(const Classic& c, const Dataset& dataset, SpaceMode mode, std::uint64_t seed,
                               const std::map<std::string, std::string>& given = {}) {
    auto strategy = c.create();
    strategy->reset({&dataset.space, mode, seed, StrategyOptions(c.name, c.table, given)});
    return strategy;
}

std::vector<Trial> runSession(Strategy& strategy, std::shared_ptr<const Dataset> dataset, SpaceMode mode,
                              std::int64_t budget, std::size_t batch = 8) {
    ReplayBackend backend(dataset);
    SessionSettings settings;
    settings.mode = mode;
    settings.batchSize = batch;
    settings.stop.maxEvaluations = budget;
    TuningSession session(dataset->space, backend, strategy, settings);
    session.run();
    return session.trials();
}

std::vector<SearchSpace::Index> indices(const std::vector<Trial>& trials) {
    std::vector<SearchSpace::Index> out;
    for (const Trial& t : trials)
        out.push_back(t.index);
    return out;
}

// Drives a strategy without a session, checking every call's contract; returns the proposals in order.
std::vector<SearchSpace::Index> drive(Strategy& strategy, const Dataset& dataset, SpaceMode mode,
                                      std::size_t budget, std::size_t batch) {
    std::vector<SearchSpace::Index> all;
    std::set<SearchSpace::Index> seen;
    while (all.size() < budget) {
        const std::size_t ask = std::min(batch, budget - all.size());
        auto proposed = strategy.propose(ask);
        if (proposed.empty())
            break;
        if (proposed.size() > ask)
            throw Error("proposed more than asked");
        std::vector<Trial> trials;
        for (auto index : proposed) {
            if (!seen.insert(index).second)
                throw Error("proposed twice: " + std::to_string(index));
            if (index >= dataset.space.productSize() ||
                (mode == SpaceMode::Constrained && !dataset.space.isValid(index)))
                throw Error("proposed outside the domain: " + std::to_string(index));
            Trial t;
            t.number = static_cast<std::int64_t>(all.size());
            t.index = index;
            auto it = dataset.entries.find(index);
            if (it != dataset.entries.end())
                t.measurement = it->second;
            trials.push_back(t);
            all.push_back(index);
        }
        strategy.observe(trials);
    }
    return all;
}

void addStrategyRows() {
    QTest::addColumn<QString>("strategy");
    for (const Classic& c : classics())
        QTest::newRow(c.name) << QString(c.name);
}

void addStrategyModeRows() {
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<int>("mode");
    for (const Classic& c : classics())
        for (int mode : {0, 1})
            QTest::newRow((std::string(c.name) + (mode ? "/product" : "/constrained")).c_str())
                << QString(c.name) << mode;
}

} // namespace

class TestClassicStrategies : public QObject {
    Q_OBJECT

private slots:
    void optionTablesHaveParsingDefaults_data() { addStrategyRows(); }
    void optionTablesHaveParsingDefaults() {
        QFETCH(QString, strategy);
        const Classic& c = classic(strategy);
        QVERIFY(!c.table.empty());
        StrategyOptions options(c.name, c.table, {});
        for (const OptionSpec& spec : c.table) {
            QVERIFY(!spec.description.empty());
            QCOMPARE(QString::fromStdString(options.text(spec.name)),
                     QString::fromStdString(spec.defaultValue));
        }
        QCOMPARE(QString::fromStdString(c.create()->name()), strategy);
    }

    // Every call returns at most what was asked, never a config twice, only configs of the domain; and the
    // strategy keeps going until the whole domain has been proposed, with batches of any size.
    void contractUntilExhausted_data() { addStrategyModeRows(); }
    void contractUntilExhausted() {
        QFETCH(QString, strategy);
        QFETCH(int, mode);
        const SpaceMode spaceMode = mode ? SpaceMode::Product : SpaceMode::Constrained;
        for (int invalidEvery : {5, 2}) {
            auto dataset = test::syntheticDataset(invalidEvery);
            for (std::size_t batch : {1, 3, 16}) {
                auto s = make(classic(strategy), *dataset, spaceMode, 11);
                auto all = drive(*s, *dataset, spaceMode, 1000, batch);
                QCOMPARE(all.size(), std::size_t(dataset->space.domainSize(spaceMode)));
                QVERIFY(s->propose(4).empty());
            }
        }
        auto sparse = test::sparseDataset();
        auto s = make(classic(strategy), *sparse, spaceMode, 5);
        auto all = drive(*s, *sparse, spaceMode, 100000, 7);
        QCOMPARE(all.size(), std::size_t(sparse->space.domainSize(spaceMode)));
    }

    void sessionRespectsBudgetWithoutRepeats_data() { addStrategyModeRows(); }
    void sessionRespectsBudgetWithoutRepeats() {
        QFETCH(QString, strategy);
        QFETCH(int, mode);
        const SpaceMode spaceMode = mode ? SpaceMode::Product : SpaceMode::Constrained;
        auto dataset = test::syntheticDataset();
        auto s = make(classic(strategy), *dataset, spaceMode, 2);
        auto trials = runSession(*s, dataset, spaceMode, 37, 5);
        QCOMPARE(trials.size(), std::size_t{37});
        auto order = indices(trials);
        QCOMPARE(std::set<SearchSpace::Index>(order.begin(), order.end()).size(), order.size());
    }

    void sameSeedSameSequence_data() { addStrategyModeRows(); }
    void sameSeedSameSequence() {
        QFETCH(QString, strategy);
        QFETCH(int, mode);
        const SpaceMode spaceMode = mode ? SpaceMode::Product : SpaceMode::Constrained;
        auto dataset = std::shared_ptr<const Dataset>(test::sparseDataset());
        auto run = [&](std::uint64_t seed) {
            auto s = make(classic(strategy), *dataset, spaceMode, seed);
            return indices(runSession(*s, dataset, spaceMode, 120, 6));
        };
        auto first = run(42);
        QCOMPARE(first.size(), std::size_t{120});
        QVERIFY(run(42) == first);
        QVERIFY(run(43) != first);
    }

    // A reset starts over: the same seed gives the same sequence on a reused object.
    void resetStartsOver_data() { addStrategyRows(); }
    void resetStartsOver() {
        QFETCH(QString, strategy);
        auto dataset = test::syntheticDataset();
        auto s = make(classic(strategy), *dataset, SpaceMode::Product, 9);
        auto first = drive(*s, *dataset, SpaceMode::Product, 30, 4);
        s->reset({&dataset->space, SpaceMode::Product, 9, {}}); // no options: the table's defaults apply
        QVERIFY(drive(*s, *dataset, SpaceMode::Product, 30, 4) == first);
    }

    // Trials told without being proposed (a resumed session) are never proposed afterwards.
    void toldTrialsAreNotProposed_data() { addStrategyRows(); }
    void toldTrialsAreNotProposed() {
        QFETCH(QString, strategy);
        auto dataset = test::syntheticDataset();
        auto s = make(classic(strategy), *dataset, SpaceMode::Product, 4);
        std::vector<Trial> told;
        for (SearchSpace::Index i = 0; i < 30; ++i) {
            Trial t;
            t.index = i * 2;
            t.measurement = dataset->entries.at(t.index);
            told.push_back(t);
        }
        s->observe(told);
        auto rest = drive(*s, *dataset, SpaceMode::Product, 1000, 8);
        QCOMPARE(rest.size(), std::size_t{30});
        for (auto index : rest)
            QCOMPARE(index % 2, SearchSpace::Index{1});
    }

    // Refused when the options are built, before the strategy proposes anything (TestStrategyOptions checks
    // every option of every strategy through the CLI).
    void badOptionValueIsAClearError() {
        auto dataset = test::syntheticDataset();
        QVERIFY_THROWS_EXCEPTION(Error, make(classic("genetic_algorithm"), *dataset, SpaceMode::Product, 0,
                                             {{"method", "sexual"}}));
        QVERIFY_THROWS_EXCEPTION(
            Error, make(classic("greedy_ils"), *dataset, SpaceMode::Product, 0, {{"neighbor", "far"}}));
    }

    // The bundled RTX 3090 GEMM space in product mode (82,944 configs, most invalid): with 200 evaluations
    // every strategy's mean fraction of the optimum over 10 seeds beats random sampling's expectation, and
    // proposing stays cheap.
    void beatsRandomOnRealDataset_data() { addStrategyRows(); }
    void beatsRandomOnRealDataset() {
        QFETCH(QString, strategy);
        static const auto dataset = std::make_shared<const Dataset>(
            readDataset(TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz"));
        constexpr int kSeeds = 10;
        constexpr std::int64_t kBudget = 200;
        double fraction = 0.0;
        double strategyMs = 0.0;
        for (int seed = 0; seed < kSeeds; ++seed) {
            auto s = make(classic(strategy), *dataset, SpaceMode::Product, seed);
            auto trials = runSession(*s, dataset, SpaceMode::Product, kBudget, 16);
            QCOMPARE(trials.size(), std::size_t(kBudget));
            double best = INFINITY;
            for (const Trial& t : trials) {
                strategyMs += t.strategyMs;
                if (t.measurement.status == MeasureStatus::Ok)
                    best = std::min(best, t.measurement.objective);
            }
            fraction += std::isfinite(best) ? *dataset->optimum() / best : 0.0;
        }
        fraction /= kSeeds;
        std::vector<double> objectives;
        for (const auto& [index, m] : dataset->entries)
            if (m.status == MeasureStatus::Ok)
                objectives.push_back(m.objective);
        double random = RandomBaseline(dataset->space.productSize(), objectives).expectedFraction(kBudget);
        qInfo("%s: mean fraction %.4f, random %.4f", qPrintable(strategy), fraction, random);
        QVERIFY2(fraction > random, qPrintable(QString("fraction %1, random %2").arg(fraction).arg(random)));
        const double msPerConfig = strategyMs / (kSeeds * kBudget);
        QVERIFY2(msPerConfig < 0.5, qPrintable(QString("%1 ms per config").arg(msPerConfig)));
    }
};

QTEST_APPLESS_MAIN(TestClassicStrategies)
#include "TestClassicStrategies.moc"
