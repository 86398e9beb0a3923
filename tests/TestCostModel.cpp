#include "BundledDatasets.h"
#include "models/ModelQuality.h"
#include "models/XgbCostModel.h"
#include "models/XgbValidityModel.h"

#include <QtTest>
#include <random>
#include <thread>

using namespace ts;

namespace {

const Dataset& gemm() {
    return ts::test::bundledGemm();
}

Trial trialOf(const Dataset& d, SearchSpace::Index index) {
    Trial t;
    t.index = index;
    auto it = d.entries.find(index);
    if (it != d.entries.end())
        t.measurement = it->second;
    return t;
}

// A seeded split of the dataset's Ok configs into `train` observations and the unseen rest.
void split(const Dataset& d, std::size_t train, std::uint64_t seed, std::vector<Trial>& seen,
           std::vector<SearchSpace::Index>& unseen) {
    std::vector<SearchSpace::Index> ok;
    for (const auto& [index, m] : d.entries)
        if (m.status == MeasureStatus::Ok)
            ok.push_back(index);
    std::sort(ok.begin(), ok.end());
    std::mt19937_64 rng(seed);
    std::shuffle(ok.begin(), ok.end(), rng);
    for (std::size_t i = 0; i < ok.size(); ++i) {
        if (i < train)
            seen.push_back(trialOf(d, ok[i]));
        else
            unseen.push_back(ok[i]);
    }
}

std::vector<double> measured(const Dataset& d, const std::vector<SearchSpace::Index>& indices) {
    std::vector<double> times;
    for (auto index : indices)
        times.push_back(d.entries.at(index).objective);
    return times;
}

} // namespace

class TestCostModel : public QObject {
    Q_OBJECT

private slots:
    void qualityMeasures() {
        std::vector<double> a{1, 2, 3, 4, 5}, b{10, 20, 30, 40, 50}, c{5, 4, 3, 2, 1};
        QCOMPARE(spearman(a, b), 1.0);
        QCOMPARE(spearman(a, c), -1.0);
        std::vector<double> constant(5, 7.0);
        QCOMPARE(spearman(a, constant), 0.0);
        std::vector<double> ties{1, 1, 2, 2, 3};
        QVERIFY(spearman(ties, a) > 0.9);
        QCOMPARE(topKRecall(a, b, 2), 1.0);
        QCOMPARE(topKRecall(c, a, 2), 0.0);
        QCOMPARE(topKRecall(std::vector<double>{1, 5, 2, 4, 3}, a, 2), 0.5);
    }

    // Acceptance: after 200 observations the model ranks the unseen configs far better than a constant
    // model (Spearman 0 by definition), for both objectives.
    void rankCorrelationOnUnseenConfigs_data() {
        QTest::addColumn<QString>("objective");
        QTest::addColumn<double>("minimum");
        QTest::newRow("regression") << "reg:squarederror" << 0.7;
        QTest::newRow("ranking") << "rank:pairwise" << 0.3;
    }
    void rankCorrelationOnUnseenConfigs() {
        QFETCH(QString, objective);
        QFETCH(double, minimum);
        const Dataset& d = gemm();
        std::vector<double> correlations;
        for (std::uint64_t seed : {1, 2, 3}) {
            std::vector<Trial> seen;
            std::vector<SearchSpace::Index> unseen;
            split(d, 200, seed, seen, unseen);
            XgbSettings settings;
            settings.objective = objective.toStdString();
            settings.seed = seed;
            XgbCostModel model(d.space, settings);
            QVERIFY(!model.isTrained());
            model.update(seen);
            QVERIFY(model.isTrained());
            std::vector<double> predicted = model.predict(unseen);
            correlations.push_back(spearman(predicted, measured(d, unseen)));
        }
        std::sort(correlations.begin(), correlations.end());
        qInfo("%s: Spearman on %zu unseen configs after 200 observations, median of 3 splits: %.3f",
              qPrintable(objective), gemm().okCount() - 200, correlations[1]);
        QVERIFY2(correlations[1] > minimum, qPrintable(QString::number(correlations[1])));
    }

    void saveLoadGivesIdenticalPredictions() {
        const Dataset& d = gemm();
        std::vector<Trial> seen;
        std::vector<SearchSpace::Index> unseen;
        split(d, 100, 7, seen, unseen);
        unseen.resize(500);
        XgbCostModel model(d.space);
        model.update(seen);
        XgbCostModel copy(d.space);
        copy.load(model.save());
        QVERIFY(copy.isTrained());
        QVERIFY(model.predict(unseen) == copy.predict(unseen));
    }

    // The validity classifier learns the hidden restrictions of the product from observed statuses.
    void validityBeatsTheMajorityClass() {
        const Dataset& d = gemm();
        std::mt19937_64 rng(5);
        std::uniform_int_distribution<SearchSpace::Index> any(0, d.space.productSize() - 1);
        std::vector<Trial> seen;
        for (int i = 0; i < 400; ++i)
            seen.push_back(trialOf(d, any(rng)));
        XgbValidityModel model(d.space);
        model.update(seen);
        std::vector<SearchSpace::Index> test;
        for (int i = 0; i < 4000; ++i)
            test.push_back(any(rng));
        std::vector<double> p = model.predict(test);
        int correct = 0, valid = 0;
        for (std::size_t i = 0; i < test.size(); ++i) {
            bool isValid = d.entries.contains(test[i]) && d.entries.at(test[i]).status == MeasureStatus::Ok;
            valid += isValid;
            correct += (p[i] > 0.5) == isValid;
        }
        double accuracy = double(correct) / double(test.size());
        double majority = std::max(valid, int(test.size()) - valid) / double(test.size());
        qInfo("validity accuracy %.3f vs majority class %.3f", accuracy, majority);
        QVERIFY(accuracy > majority + 0.05);
    }

    void predictingWhileTraining() {
        const Dataset& d = gemm();
        std::vector<Trial> seen;
        std::vector<SearchSpace::Index> unseen;
        split(d, 300, 9, seen, unseen);
        unseen.resize(200);
        XgbCostModel model(d.space);
        model.update(std::span(seen).first(50));
        std::atomic<bool> done{false};
        std::atomic<int> predictions{0};
        std::thread reader([&] {
            while (!done) {
                auto p = model.predict(unseen);
                QCOMPARE(p.size(), unseen.size());
                ++predictions;
            }
        });
        for (std::size_t n = 100; n <= 300; n += 100)
            model.update(std::span(seen).first(n));
        done = true;
        reader.join();
        QVERIFY(predictions > 0);
    }
};

QTEST_APPLESS_MAIN(TestCostModel)
#include "TestCostModel.moc"
