#include "BundledDatasets.h"
#include "models/LearnedRestrictions.h"
#include "models/XgbValidityModel.h"

#include <QtTest>
#include <functional>
#include <random>

using namespace ts;

namespace {

const Dataset& gemm() {
    return ts::test::bundledGemm();
}

bool okIn(const Dataset& d, SearchSpace::Index index) {
    auto it = d.entries.find(index);
    return it != d.entries.end() && it->second.status == MeasureStatus::Ok;
}

Trial trialWith(SearchSpace::Index index, bool ok) {
    Trial t;
    t.index = index;
    t.measurement.status = ok ? MeasureStatus::Ok : MeasureStatus::Invalid;
    t.measurement.objective = ok ? 1.0 : 0.0;
    return t;
}

// `count` distinct random configs of the product with the statuses `valid` gives them.
std::vector<Trial> observe(const SearchSpace& space, std::size_t count, std::uint64_t seed,
                           const std::function<bool(SearchSpace::Index)>& valid) {
    std::mt19937_64 rng(seed);
    std::vector<Trial> trials;
    for (SearchSpace::Index index : space.sample(count, SpaceMode::Product, rng))
        trials.push_back(trialWith(index, valid(index)));
    return trials;
}

std::vector<Parameter> powersOfTwo() {
    auto values = [](std::initializer_list<std::int64_t> list) {
        std::vector<Value> v(list.size(), Value(std::int64_t{0}));
        std::transform(list.begin(), list.end(), v.begin(), [](std::int64_t x) { return Value(x); });
        return v;
    };
    return {{"a", ParameterType::Integer, values({1, 2, 4, 8, 16, 32})},
            {"b", ParameterType::Integer, values({1, 2, 4, 8})},
            {"c", ParameterType::Integer, values({1, 2, 4})},
            {"d", ParameterType::Integer, values({3, 5, 6, 7})}};
}

QString joined(const std::vector<std::string>& lines) {
    QStringList list;
    for (const std::string& line : lines)
        list << QString::fromStdString(line);
    return list.join("; ");
}

} // namespace

class TestRestrictions : public QObject {
    Q_OBJECT

private slots:
    // A hidden "a % (b * c) == 0" is learned from 150 random observations and then predicts every config
    // of the product exactly.
    void learnsAHiddenDivisibilityRule() {
        SearchSpace space(powersOfTwo(), {});
        auto rule = [&](SearchSpace::Index i) {
            Config c = space.config(i);
            auto a = std::int64_t(toNumber(c[0])), b = std::int64_t(toNumber(c[1])),
                 k = std::int64_t(toNumber(c[2]));
            return a % (b * k) == 0;
        };
        LearnedRestrictions learner(space);
        learner.update(observe(space, 150, 1, rule));
        QVERIFY(!learner.learned().empty());
        QCOMPARE(QString::fromStdString(learner.describe().front()), QString("a % (b * c) == 0"));
        std::vector<SearchSpace::Index> all(space.productSize());
        std::iota(all.begin(), all.end(), 0);
        std::vector<double> p = learner.predict(all);
        for (SearchSpace::Index i : all) {
            if (rule(i))
                QCOMPARE(p[i], 1.0);
            else
                QVERIFY2(p[i] < 0.05, qPrintable(QString::fromStdString(space.key(i))));
        }
    }

    // Failures unrelated to the parameters (a coin per config) teach no rule, however many are seen.
    void randomFailuresTeachNothing() {
        const SearchSpace& space = gemm().space;
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            auto coin = [seed](SearchSpace::Index i) {
                return std::hash<std::uint64_t>{}(i * 7919 + seed) % 2;
            };
            for (std::size_t n : {50, 200, 400}) {
                LearnedRestrictions learner(space);
                learner.update(observe(space, n, seed, [&](SearchSpace::Index i) { return coin(i) == 0; }));
                QVERIFY2(learner.learned().empty(), qPrintable(QString("seed %1, %2 observations: learned %3")
                                                                   .arg(seed)
                                                                   .arg(n)
                                                                   .arg(joined(learner.describe()))));
            }
        }
    }

    // On the CLBlast GEMM product (78 % invalid, Kernel Tuner's seven divisibility restrictions hidden) the
    // rules learned from 300 random observations explain most failures, keep the valid configs, and make the
    // validity model more accurate than the classifier alone.
    void gemmRestrictionsFromRandomObservations() {
        const Dataset& d = gemm();
        auto valid = [&](SearchSpace::Index i) { return okIn(d, i); };
        std::vector<Trial> seen = observe(d.space, 300, 4, valid);
        LearnedRestrictions learner(d.space);
        learner.update(seen);
        qInfo("%zu candidate rules", learner.candidates().size());
        for (const std::string& line : learner.describe())
            qInfo("learned: %s", line.c_str());
        std::mt19937_64 rng(11);
        std::vector<SearchSpace::Index> test = d.space.sample(8000, SpaceMode::Product, rng);
        std::vector<double> byRules = learner.predict(test);
        std::size_t validKept = 0, validCount = 0, invalidCaught = 0, invalidCount = 0;
        for (std::size_t i = 0; i < test.size(); ++i) {
            bool isValid = valid(test[i]);
            (isValid ? validCount : invalidCount)++;
            if (isValid)
                validKept += byRules[i] == 1.0;
            else
                invalidCaught += byRules[i] < 1.0;
        }
        double kept = double(validKept) / double(validCount),
               caught = double(invalidCaught) / double(invalidCount);
        qInfo("valid configs breaking no learned rule %.3f, invalid configs breaking one %.3f", kept, caught);
        QVERIFY(kept > 0.97);
        QVERIFY(caught > 0.9);

        auto accuracy = [&](bool restrictions) {
            XgbValidityModel model(d.space, {}, restrictions);
            model.update(seen);
            std::vector<double> p = model.predict(test);
            std::size_t correct = 0;
            for (std::size_t i = 0; i < test.size(); ++i)
                correct += (p[i] > 0.5) == valid(test[i]);
            return double(correct) / double(test.size());
        };
        double with = accuracy(true), without = accuracy(false);
        qInfo("validity accuracy %.3f with learned restrictions, %.3f without", with, without);
        QVERIFY(with > without + 0.02);
    }

    // Too little evidence (under two Ok trials) teaches nothing; predictions are then 1 everywhere.
    void nothingLearnedFromTooLittle() {
        SearchSpace space(powersOfTwo(), {});
        LearnedRestrictions learner(space);
        std::vector<Trial> trials{trialWith(0, true), trialWith(5, false), trialWith(9, false),
                                  trialWith(13, false)};
        learner.update(trials);
        QVERIFY(learner.learned().empty());
        std::vector<SearchSpace::Index> some{0, 5, 9, 13, 20};
        const std::vector<double> predicted = learner.predict(some);
        QCOMPARE(predicted.size(), some.size());
        for (double p : predicted)
            QCOMPARE(p, 1.0);
    }
};

QTEST_APPLESS_MAIN(TestRestrictions)
#include "TestRestrictions.moc"
