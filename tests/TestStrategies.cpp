#include "SyntheticDataset.h"
#include "records/DatasetReader.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"

#include <QtTest>
#include <set>

using namespace ts;

namespace {

Trial fakeTrial(const Dataset& dataset, SearchSpace::Index index, std::int64_t number) {
    Trial t;
    t.number = number;
    t.index = index;
    t.config = dataset.space.config(index);
    auto it = dataset.entries.find(index);
    if (it != dataset.entries.end())
        t.measurement = it->second;
    return t;
}

// Drives a strategy the way a session does (without one), returning every proposed index in order.
std::vector<SearchSpace::Index> drive(Strategy& strategy, const Dataset& dataset, std::size_t batch,
                                      std::size_t budget) {
    std::vector<SearchSpace::Index> all;
    while (all.size() < budget) {
        auto proposed = strategy.propose(std::min(batch, budget - all.size()));
        if (proposed.empty())
            break;
        std::vector<Trial> trials;
        for (auto index : proposed) {
            trials.push_back(fakeTrial(dataset, index, static_cast<std::int64_t>(all.size())));
            all.push_back(index);
        }
        strategy.observe(trials);
    }
    return all;
}

} // namespace

class TestStrategies : public QObject {
    Q_OBJECT

private slots:
    void registryListsBuiltins() {
        const auto& registry = StrategyRegistry::builtin();
        auto names = registry.names();
        QVERIFY(std::find(names.begin(), names.end(), "random_sample") != names.end());
        QVERIFY(std::find(names.begin(), names.end(), "brute_force") != names.end());
        QCOMPARE(QString::fromStdString(registry.entry("default").name),
                 QString::fromStdString(registry.defaultName()));
    }

    void unknownStrategyIsOneClearSentence() {
        try {
            StrategyRegistry::builtin().entry("simulated_anealing");
            QFAIL("expected an error");
        } catch (const Error& e) {
            QString message = e.what();
            QVERIFY(message.contains("simulated_anealing"));
            QVERIFY(message.contains("random_sample"));
        }
    }

    void unknownOptionRejected() {
        StrategyRegistry registry;
        registry.add(
            {"s", "test", {OptionSpec::real("temperature", "1.0", 0.0, 10.0, "start temperature")}, nullptr});
        QVERIFY_THROWS_EXCEPTION(Error, registry.options("s", {{"temprature", "2"}}));
        QVERIFY_THROWS_EXCEPTION(Error, registry.options("s", {{"temperature", "hot"}}));
        QVERIFY_THROWS_EXCEPTION(Error, registry.options("s", {{"temperature", "11"}}));
        auto options = registry.options("s", {{"temperature", "2.5"}});
        QCOMPARE(options.real("temperature"), 2.5);
        QCOMPARE(registry.options("s", {}).real("temperature"), 1.0);
        QCOMPARE(QString::fromStdString(options.toJson()), QString(R"({"temperature":2.5})"));
    }

    // Conformance: every registered strategy, in both modes, proposes distinct configs of its domain,
    // never more than asked, and the same sequence for the same seed.
    void conformance_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("mode");
        for (const auto& name : StrategyRegistry::builtin().names())
            for (int mode : {0, 1})
                QTest::newRow((name + (mode ? "/product" : "/constrained")).c_str())
                    << QString::fromStdString(name) << mode;
    }
    void conformance() {
        QFETCH(QString, strategy);
        QFETCH(int, mode);
        auto dataset = test::syntheticDataset();
        SpaceMode spaceMode = mode ? SpaceMode::Product : SpaceMode::Constrained;
        auto run = [&](std::uint64_t seed) {
            auto s = StrategyRegistry::builtin().create(strategy.toStdString());
            s->reset({&dataset->space, spaceMode, seed,
                      StrategyRegistry::builtin().options(strategy.toStdString(), {})});
            return drive(*s, *dataset, 7, 40);
        };
        auto first = run(1);
        QCOMPARE(first.size(), std::size_t{40});
        std::set<SearchSpace::Index> unique(first.begin(), first.end());
        QCOMPARE(unique.size(), first.size());
        for (auto index : first) {
            QVERIFY(index < dataset->space.productSize());
            if (spaceMode == SpaceMode::Constrained)
                QVERIFY(dataset->space.isValid(index));
        }
        QVERIFY(run(1) == first);
    }

    void strategiesExhaustTheDomain() {
        auto dataset = test::syntheticDataset();
        for (const auto& name : StrategyRegistry::builtin().names()) {
            auto s = StrategyRegistry::builtin().create(name);
            s->reset({&dataset->space, SpaceMode::Product, 3, StrategyRegistry::builtin().options(name, {})});
            auto all = drive(*s, *dataset, 16, 1000);
            QCOMPARE(all.size(), std::size_t(dataset->space.productSize()));
            QVERIFY(s->propose(4).empty());
        }
    }

    // Conformance on a space where 90 % of the product is invalid (and one where all of it is): every
    // strategy keeps going, finds the optimum within the whole domain's budget, and never repeats a config.
    void strategiesCopeWithMostlyInvalidSpaces() {
        auto mostlyInvalid = test::syntheticDataset();
        for (auto& [index, m] : mostlyInvalid->entries)
            if (index % 10 != 3 && index != 39) {
                m.status = MeasureStatus::CompileFailed;
                m.samples.clear();
            }
        auto allInvalid = test::syntheticDataset(1);
        for (const auto& name : StrategyRegistry::builtin().names()) {
            for (const auto& dataset : {mostlyInvalid, allInvalid}) {
                auto s = StrategyRegistry::builtin().create(name);
                s->reset(
                    {&dataset->space, SpaceMode::Product, 5, StrategyRegistry::builtin().options(name, {})});
                auto all = drive(*s, *dataset, 8, 1000);
                QCOMPARE(all.size(), std::size_t(dataset->space.productSize()));
                QCOMPARE(std::set<SearchSpace::Index>(all.begin(), all.end()).size(), all.size());
                if (dataset == mostlyInvalid)
                    QVERIFY2(std::find(all.begin(), all.end(), SearchSpace::Index(39)) != all.end(),
                             name.c_str());
            }
        }
    }

    // xgb and evolutionary keep the configs of a batch `diversity` parameters apart when the candidates
    // allow it (on the GEMM product they always do), so a batch does not spend its slots on one spot.
    void modelBatchesKeepTheirDistance_data() {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("xgb") << "xgb";
        QTest::newRow("evolutionary") << "evolutionary";
    }
    void modelBatchesKeepTheirDistance() {
        QFETCH(QString, strategy);
        const Dataset dataset = readDataset(TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz");
        const StrategyRegistry& registry = StrategyRegistry::builtin();
        auto search = registry.create(strategy.toStdString());
        search->reset({&dataset.space, SpaceMode::Product, 3,
                       registry.options(strategy.toStdString(), {{"diversity", "3"}, {"epsilon", "0"}}),
                       nullptr});
        std::size_t evaluated = 0, fullBatches = 0;
        while (evaluated < 240) {
            auto batch = search->propose(8);
            QVERIFY(!batch.empty());
            if (batch.size() == 8) {
                ++fullBatches;
                for (std::size_t a = 0; a < batch.size(); ++a)
                    for (std::size_t b = a + 1; b < batch.size(); ++b) {
                        auto x = dataset.space.digits(batch[a]), y = dataset.space.digits(batch[b]);
                        std::size_t differ = 0;
                        for (std::size_t i = 0; i < x.size(); ++i)
                            differ += x[i] != y[i];
                        QVERIFY2(differ >= 3,
                                 qPrintable(QString::fromStdString(dataset.space.key(batch[a]) + " ~ " +
                                                                   dataset.space.key(batch[b]))));
                    }
            }
            std::vector<Trial> trials;
            for (auto index : batch)
                trials.push_back(fakeTrial(dataset, index, static_cast<std::int64_t>(evaluated++)));
            search->observe(trials);
        }
        QVERIFY(fullBatches >= 10);
    }

    void bruteForceWalksInIndexOrder() {
        auto dataset = test::syntheticDataset();
        auto s = StrategyRegistry::builtin().create("brute_force");
        s->reset({&dataset->space, SpaceMode::Product, 0, {}});
        auto all = drive(*s, *dataset, 5, 12);
        for (std::size_t i = 0; i < all.size(); ++i)
            QCOMPARE(all[i], SearchSpace::Index(i));
    }

    void randomSampleDiffersBetweenSeedsAndIsUniform() {
        auto dataset = test::syntheticDataset(0);
        const std::size_t n = dataset->space.productSize();
        std::vector<int> firstPick(n, 0);
        const int runs = 6000;
        for (int seed = 0; seed < runs; ++seed) {
            auto s = StrategyRegistry::builtin().create("random_sample");
            s->reset({&dataset->space, SpaceMode::Product, std::uint64_t(seed), {}});
            firstPick[s->propose(1).front()]++;
        }
        // Each of the 60 configs should be first about 100 times; a chi-square over 59 degrees of freedom
        // above 110 has probability below 1e-4 for a uniform sampler.
        double expected = double(runs) / double(n), chi2 = 0;
        for (int count : firstPick)
            chi2 += (count - expected) * (count - expected) / expected;
        QVERIFY2(chi2 < 110, qPrintable(QString("chi2 %1").arg(chi2)));
    }
};

QTEST_APPLESS_MAIN(TestStrategies)
#include "TestStrategies.moc"
