// The parameter importance view, offscreen: fed from a replayed run's RunData, it draws one bar per varied
// parameter, the most important at the top, with core's values (read from the series and measured in the
// rendered pixels), names its method, and says why it draws nothing for a run with too few trials.
#include "views/ParameterImportanceView.h"
#include "data/RunData.h"
#include "StrategyRun.h"

#include "datasets/DatasetReader.h"
#include "strategies/StrategyRegistry.h"

#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHorizontalBarSeries>
#include <QLayout>
#include <QSignalSpy>
#include <QtTest>
#include <cmath>

using namespace ts;
using namespace ts::gui;

namespace {

const QString kPnpoly = TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz";

std::vector<Trial> replayTrials(const std::shared_ptr<const Dataset>& dataset, std::int64_t budget) {
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    StrategyContext context{&dataset->space, SpaceMode::Constrained, 3,
                            registry.options("random_sample", {})};
    return test::runStrategy(registry.create("random_sample"), context, dataset, budget, 8).trials;
}

// Length in pixels of the bar drawn on row y of the chart: the longest run of the bar colour.
int barLength(const QImage& image, int y, QColor colour) {
    int best = 0, run = 0;
    for (int x = 0; x < image.width(); ++x) {
        const QColor c = image.pixelColor(x, y);
        const bool bar = std::abs(c.red() - colour.red()) < 12 && std::abs(c.green() - colour.green()) < 12 &&
                         std::abs(c.blue() - colour.blue()) < 12;
        run = bar ? run + 1 : 0;
        best = std::max(best, run);
    }
    return best;
}

} // namespace

class TestGuiImportance : public QObject {
    Q_OBJECT

private slots:
    void barsShowCoreRankingTopFirst();
    void tooFewTrialsShowNoBarsAndSaySo();
    void trialsThatArriveDuringAnAnalysisAreAnalysedNext();
    void aResetDuringAnAnalysisDropsItsResult();
};

void TestGuiImportance::barsShowCoreRankingTopFirst() {
    auto dataset = std::make_shared<const Dataset>(readDataset(kPnpoly.toStdString()));
    const std::vector<Trial> trials = replayTrials(dataset, 150);
    RunData data;
    data.reset(
        {"random_sample seed 3", "cn_pnpoly", "RTX 3090", "random_sample", "completed", 1, 150, {}, {}},
        dataset->space.parameters(), dataset);
    data.append(trials);
    ParameterImportanceView view(data);
    view.resize(900, 500);
    view.show();
    QSignalSpy shown(&view, &ParameterImportanceView::importanceShown);
    view.refreshIfNeeded(true);
    QVERIFY(shown.wait(60000));
    view.layout()->activate(); // the note's new text may need more lines

    const ImportanceResult expected = ParameterImportance::compute(dataset->space.parameters(), trials);
    QStringList names;
    QList<qreal> values;
    for (const ParameterEffect& e : expected.ranked)
        if (e.values >= 2) {
            names << QString::fromStdString(e.parameter);
            values << 100.0 * e.importance;
        }
    QCOMPARE(view.rankedParameters(), names);
    QCOMPARE(view.barValues(), values);
    QVERIFY2(names.size() >= 3, qPrintable(names.join(",")));
    QVERIFY2(view.chart()->chart()->title().contains(ParameterImportance::kMethod),
             qPrintable(view.chart()->chart()->title()));
    QVERIFY2(view.noteText().contains(QString("Fitted to %1 successful trials").arg(expected.trials)),
             qPrintable(view.noteText()));

    // The pixels: bar i (from the top) is drawn on the row of its category, as long as its value says.
    QChart* chart = view.chart()->chart();
    auto* series = qobject_cast<QHorizontalBarSeries*>(chart->series().front());
    QVERIFY(series);
    const QImage image = view.chart()->grab().toImage();
    const double scale = image.width() / double(view.chart()->width()); // device pixel ratio
    const QColor colour = series->barSets().front()->color();
    const qsizetype n = names.size();
    std::vector<int> lengths;
    for (qsizetype i = 0; i < n; ++i) {
        // Category n - 1 - i is the i-th bar from the top.
        const QPointF centre = chart->mapToPosition(QPointF(0.0, double(n - 1 - i)), series);
        lengths.push_back(barLength(image, int(std::lround(centre.y() * scale)), colour));
    }
    const QPointF origin = chart->mapToPosition(QPointF(0.0, 0.0), series);
    const QPointF hundred = chart->mapToPosition(QPointF(values.front(), 0.0), series);
    const double pixelsPerPercent = (hundred.x() - origin.x()) * scale / values.front();
    for (qsizetype i = 0; i < n; ++i) {
        const double expectedLength = values[i] * pixelsPerPercent;
        QVERIFY2(std::abs(lengths[std::size_t(i)] - expectedLength) <= 3.0 + 0.02 * expectedLength,
                 qPrintable(QString("bar %1 (%2): %3 px, expected %4 px")
                                .arg(i)
                                .arg(names[i])
                                .arg(lengths[std::size_t(i)])
                                .arg(expectedLength)));
        if (i > 0)
            QVERIFY2(lengths[std::size_t(i)] <= lengths[std::size_t(i - 1)] + 1, qPrintable(names.join(",")));
    }
    QVERIFY2(lengths.front() > 50, qPrintable(QString::number(lengths.front())));
}

void TestGuiImportance::tooFewTrialsShowNoBarsAndSaySo() {
    auto dataset = std::make_shared<const Dataset>(readDataset(kPnpoly.toStdString()));
    RunData data;
    data.reset({}, dataset->space.parameters(), dataset);
    data.append(replayTrials(dataset, 60));
    ParameterImportanceView view(data);
    view.show();
    QSignalSpy shown(&view, &ParameterImportanceView::importanceShown);
    view.refreshIfNeeded(true);
    QVERIFY(shown.wait(60000));
    QVERIFY(!view.rankedParameters().isEmpty());

    // A new run with 5 trials: the old bars go, and the note says what is missing.
    data.reset({}, dataset->space.parameters(), dataset);
    data.append(replayTrials(dataset, 5));
    view.refreshIfNeeded(true);
    QVERIFY(view.rankedParameters().isEmpty());
    QVERIFY(view.barValues().isEmpty());
    QVERIFY(!view.result());
    QVERIFY2(view.noteText().contains("needs at least 8 successful trials; this run has"),
             qPrintable(view.noteText()));
}

// The analysis's result reaches the view through the event loop, so trials appended right after it starts
// arrive while it is in flight: the view shows that result, then analyses again with every trial.
void TestGuiImportance::trialsThatArriveDuringAnAnalysisAreAnalysedNext() {
    auto dataset = std::make_shared<const Dataset>(readDataset(kPnpoly.toStdString()));
    const std::vector<Trial> trials = replayTrials(dataset, 120);
    RunData data;
    data.reset({}, dataset->space.parameters(), dataset);
    data.append({trials.begin(), trials.begin() + 40});
    ParameterImportanceView view(data);
    view.show();
    QSignalSpy shown(&view, &ParameterImportanceView::importanceShown);
    view.refreshIfNeeded(true);
    data.append({trials.begin() + 40, trials.end()});
    QVERIFY(shown.wait(60000));
    QCOMPARE(view.result()->trials, ParameterImportance::usableCount({trials.data(), 40}, 4));
    if (shown.count() < 2)
        QVERIFY(shown.wait(60000));
    const ImportanceResult expected = ParameterImportance::compute(dataset->space.parameters(), trials);
    QCOMPARE(view.result()->trials, expected.trials);
    QList<qreal> values;
    for (const ParameterEffect& e : expected.ranked)
        values << 100.0 * e.importance;
    QCOMPARE(view.barValues(), values);
}

// A new run while the last run's analysis is in flight: that analysis is dropped, never drawn, and the new
// run's is shown.
void TestGuiImportance::aResetDuringAnAnalysisDropsItsResult() {
    auto dataset = std::make_shared<const Dataset>(readDataset(kPnpoly.toStdString()));
    const std::vector<Trial> first = replayTrials(dataset, 150);
    const std::vector<Trial> second = replayTrials(dataset, 30);
    RunData data;
    data.reset({}, dataset->space.parameters(), dataset);
    data.append(first);
    ParameterImportanceView view(data);
    view.show();
    QSignalSpy shown(&view, &ParameterImportanceView::importanceShown);
    view.refreshIfNeeded(true);
    data.reset({}, dataset->space.parameters(), dataset);
    data.append(second);
    view.refreshIfNeeded(true);
    QVERIFY(shown.wait(60000));
    QCOMPARE(shown.count(), 1);
    const ImportanceResult expected = ParameterImportance::compute(dataset->space.parameters(), second);
    QCOMPARE(view.result()->trials, expected.trials);
    QList<qreal> values;
    for (const ParameterEffect& e : expected.ranked)
        values << 100.0 * e.importance;
    QCOMPARE(view.barValues(), values);
}

QTEST_MAIN(TestGuiImportance)
#include "TestGuiImportance.moc"
