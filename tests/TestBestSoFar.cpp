// The one best-so-far curve (core/trial/BestSoFar), as the comparison, the window and the CLI read it: only
// Ok results count, only a strictly smaller objective improves, NaN never does.
#include "analysis/Comparison.h"
#include "trial/BestSoFar.h"

#include "SyntheticDataset.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace ts;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Trial trial(MeasureStatus status, double objective) {
    Trial t;
    t.measurement.status = status;
    t.measurement.objective = objective;
    return t;
}

} // namespace

class TestBestSoFar : public QObject {
    Q_OBJECT

private slots:
    void curveAndImprovements() {
        const std::vector<Trial> trials{
            trial(MeasureStatus::Invalid, 0.0),       trial(MeasureStatus::Ok, 5.0),
            trial(MeasureStatus::CompileFailed, 1.0), trial(MeasureStatus::Ok, 5.0),
            trial(MeasureStatus::Ok, std::nan("")),   trial(MeasureStatus::Ok, 3.0),
            trial(MeasureStatus::Timeout, 0.5),       trial(MeasureStatus::Ok, 4.0),
        };
        const BestSoFar best = BestSoFar::of(trials);
        QVERIFY(best.curve() == (std::vector<double>{kInf, 5, 5, 5, 5, 3, 3, 3}));
        QCOMPARE(best.improvements().size(), std::size_t{2});
        QCOMPARE(best.improvements()[0].position, std::size_t{1}); // the first of two equal bests
        QCOMPARE(best.improvements()[0].objective, 5.0);
        QCOMPARE(best.improvements()[1].position, std::size_t{5});
        QCOMPARE(best.bestPosition(), std::optional<std::size_t>{5});
        QCOMPARE(best.best(), 3.0);
    }

    void nothingOkYet() {
        BestSoFar best;
        QVERIFY(!best.add(MeasureStatus::RuntimeFailed, 0.0));
        QVERIFY(!best.add(MeasureStatus::Ok, std::nan("")));
        QVERIFY(best.curve() == (std::vector<double>{kInf, kInf}));
        QVERIFY(!best.bestPosition());
        QCOMPARE(best.best(), BestSoFar::kNothingYet);
    }

    // The comparison's replay of a config order gives the curve of the same results.
    void comparisonReplayIsTheSameCurve() {
        const auto dataset = test::syntheticDataset(4);
        std::vector<SearchSpace::Index> order;
        for (SearchSpace::Index index = dataset->space.productSize(); index-- > 0;)
            order.push_back(index);
        const CompareRun run = Comparison::replay(*dataset, order, 1000);
        std::vector<double> expected;
        double best = kInf;
        for (SearchSpace::Index index : order) {
            const Measurement& m = dataset->entries.at(index);
            if (m.status == MeasureStatus::Ok)
                best = std::min(best, m.objective);
            expected.push_back(best);
        }
        QVERIFY(run.bestSoFar == expected);
        QVERIFY(run.bestSoFar.back() < kInf);
    }
};

QTEST_GUILESS_MAIN(TestBestSoFar)
#include "TestBestSoFar.moc"
