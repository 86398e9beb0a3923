// The views say what the data says: the explorer's heatmap and the trials table come from the same trials
// whatever is in front, a throttled view catches up by itself, a cancelled comparison's chart and table are
// built from the same finished runs, times read in units that fit, axes tick on nice steps, the convergence
// overlay holds comparable runs only, and the cost model view's legend and notes match what it draws.
#include "charts/ChartSupport.h"
#include "views/ComparisonView.h"
#include "views/ConvergenceView.h"
#include "views/CostModelView.h"
#include "window/ErrorReporter.h"
#include "views/ExplorerView.h"
#include "views/HardwareView.h"
#include "charts/HeatmapWidget.h"
#include "data/RunData.h"
#include "window/TimeFormat.h"
#include "views/TrialDetailsView.h"
#include "data/TrialFilterProxy.h"
#include "data/TrialTableModel.h"

#include "session/ModelQualityTracker.h"
#include "session/SessionProgress.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QValueAxis>
#include <QtTest>
#include <cmath>

using namespace ts;
using namespace ts::gui;

namespace {

const QString kGemm = TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz";
const QString kPnpoly = TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz";

std::vector<Parameter> twoParameters() {
    return {Parameter{"x",
                      ParameterType::Integer,
                      {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{4}}},
            Parameter{"y",
                      ParameterType::Integer,
                      {std::int64_t{10}, std::int64_t{20}, std::int64_t{30}, std::int64_t{40}}}};
}

Trial okTrial(std::int64_t number, std::int64_t x, std::int64_t y, double ms, std::int64_t batch = 0) {
    Trial t;
    t.number = number;
    t.index = static_cast<SearchSpace::Index>(number);
    t.config = {x, y};
    t.measurement.status = MeasureStatus::Ok;
    t.measurement.objective = ms;
    t.batch = batch;
    return t;
}

RunData::Info runInfo(const QString& kernel, const QString& strategy = "random_sample") {
    RunData::Info info;
    info.label = strategy;
    info.kernel = kernel;
    info.device = "test device";
    info.strategy = strategy;
    info.status = "completed";
    info.budget = 16;
    return info;
}

// The fastest time of the trials table, read through its model as a user sorting by time would.
double tableBest(ExplorerView& view) {
    view.table()->sortByColumn(TrialTableModel::Time, Qt::AscendingOrder);
    return view.proxy()->index(0, TrialTableModel::Time).data(TrialTableModel::kSortRole).toDouble();
}

bool isNiceStep(double step) {
    if (!(step > 0))
        return false;
    const double power = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    for (double nice : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (std::abs(step - nice * power) < 1e-9 * power)
            return true;
    return false;
}

// A view that counts its redraws.
class CountingView : public RunView {
public:
    using RunView::RunView;
    int refreshes = 0;

protected:
    void refresh() override { ++refreshes; }
};

} // namespace

class TestGuiDataAgreement : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The heatmap adds the trials as they are appended, as the table does: with another plot in front
    // (the heatmap's tab not refreshed) and after the explorer's throttled refresh, its best is the
    // table's.
    void heatmapFollowsTheTrialsWhicheverPlotIsInFront() {
        RunData data;
        data.reset(runInfo("gemm"), twoParameters());
        ExplorerView view(data);
        view.setMinimumInterval(500);
        view.resize(1000, 600);
        view.show();
        view.plots()->setCurrentIndex(1); // parallel coordinates in front
        std::vector<Trial> first;
        for (std::int64_t i = 0; i < 8; ++i)
            first.push_back(okTrial(i, 1 + i % 4, 10 * (1 + i / 2 % 4), 7.17 + static_cast<double>(i)));
        data.append(first);
        view.refreshIfNeeded(true);
        QCOMPARE(view.heatmap()->heatmap().lo, 7.17);
        data.append({okTrial(8, 2, 30, 6.27)}); // a new best, within the throttle's interval
        view.refreshIfNeeded();
        const HeatmapData& h = view.heatmap()->heatmap();
        QCOMPARE(h.at(1, 2), 6.27);
        QCOMPARE(h.lo, tableBest(view));
        QCOMPARE(h.bestTrial[static_cast<std::size_t>(2 * h.columns + 1)], 8);
        view.plots()->setCurrentIndex(0);
        QCOMPARE(view.heatmap()->heatmap().lo, 6.27);
        // A new run starts from nothing.
        data.reset(runInfo("gemm"), twoParameters());
        QVERIFY(!std::isfinite(view.heatmap()->heatmap().lo));
    }

    // A refresh held back by the minimum interval is made once the interval has passed, without another
    // call (the main window's timer stops when the session ends).
    void throttledViewCatchesUpByItself() {
        RunData data;
        CountingView view(data);
        view.setMinimumInterval(1000);
        view.show();
        view.refreshIfNeeded(true);
        const int before = view.refreshes;
        view.markDirty();
        view.refreshIfNeeded(); // within the interval: held back
        QCOMPARE(view.refreshes, before);
        QTRY_COMPARE_WITH_TIMEOUT(view.refreshes, before + 1, 10000);
        QVERIFY(!view.isDirty());
    }

    // Cancel a comparison while it runs the first dataset's seeds: the second dataset has no finished run.
    // Table and chart hold the same numbers (from the same finished runs), the cut-off pairs are named and
    // marked, and the progress bar ends on the finished runs.
    void cancelledComparisonAgreesWithItsChart() {
        ErrorReporter errors;
        errors.setInteractive(false);
        QSignalSpy reported(&errors, &ErrorReporter::reported);
        ComparisonView view(errors);
        view.resize(1300, 800);
        view.show();
        view.configure({kGemm, kPnpoly}, {"random_sample"}, 1000, "20,200", SpaceMode::Constrained);
        QSignalSpy finished(&view, &ComparisonView::finished);
        connect(view.progressBar(), &QProgressBar::valueChanged, &view, [&view](int value) {
            if (value >= 1)
                view.cancel();
        });
        QVERIFY(view.start());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().first().toBool(), true);
        QCOMPARE(reported.count(), 0);
        const ComparisonView::Outcome& outcome = view.outcome();
        QVERIFY(outcome.cancelled);
        const std::size_t runs = outcome.result.runs.size();
        QVERIFY(runs >= 1);
        QVERIFY2(runs < 1000, "the comparison finished the first dataset before the cancel");
        for (const CompareRun& run : outcome.result.runs)
            QCOMPARE(run.dataset, std::size_t{0});

        QLineSeries* line = nullptr;
        for (QAbstractSeries* series : view.chart()->chart()->series())
            if (series->name() == "random_sample")
                line = qobject_cast<QLineSeries*>(series);
        QVERIFY(line != nullptr);
        QTableWidget* table = view.scoreTable();
        QCOMPARE(table->rowCount(), 1);
        QVERIFY(table->item(0, 0)->text().startsWith("random_sample"));
        const int budgets[] = {20, 200};
        for (int c = 0; c < 2; ++c) {
            const double chart = line->at(budgets[c] - 1).y();
            const QString cell = table->item(0, c + 1)->text();
            QVERIFY2(cell.startsWith(QString::number(chart, 'f', 3)),
                     qPrintable(QString("@%1: table %2, chart %3").arg(budgets[c]).arg(cell).arg(chart)));
            QVERIFY2(cell.endsWith("*"), qPrintable(cell)); // marked: runs were cut off
        }
        QVERIFY2(view.summaryText().contains("pnpoly_RTX_3090.json.gz (0 of 1000 seeds)"),
                 qPrintable(view.summaryText()));
        QVERIFY2(view.summaryText().contains("gemm_clblast_RTX_3090.json.gz"),
                 qPrintable(view.summaryText()));
        QCOMPARE(view.progressBar()->maximum(), 2000);
        QCOMPARE(view.progressBar()->value(), static_cast<int>(runs));
        QVERIFY2(view.progressBar()->text().startsWith("cancelled"), qPrintable(view.progressBar()->text()));
    }

    void timesReadInUnitsThatFit() {
        QCOMPARE(formatMs(0.0412), QString("41.2 us"));
        QCOMPARE(formatMs(12.3456), QString("12.35 ms"));
        QCOMPARE(formatMs(0.00005), QString("50 ns"));
        QCOMPARE(formatMs(1500.0), QString("1.5 s"));
        QCOMPARE(formatMs(0.99996), QString("1 ms"));
        QCOMPARE(formatMs(0.0), QString("0 s"));
        QCOMPARE(formatS(0.25), QString("250 ms"));
        QCOMPARE(formatS(3725.0), QString("3725 s"));

        // The trials table shows them so and still sorts by the value.
        RunData data;
        data.reset(runInfo("softmax"), twoParameters());
        data.append({okTrial(0, 1, 10, 0.0412), okTrial(1, 2, 20, 12.0), okTrial(2, 3, 30, 3.0),
                     okTrial(3, 4, 40, 0.5)});
        ExplorerView view(data);
        view.show();
        QCOMPARE(view.model()->index(0, TrialTableModel::Time).data().toString(), QString("41.2 us"));
        QCOMPARE(view.model()->index(1, TrialTableModel::Time).data().toString(), QString("12 ms"));
        view.table()->sortByColumn(TrialTableModel::Time, Qt::AscendingOrder);
        QStringList sorted;
        for (int row = 0; row < 4; ++row)
            sorted << view.proxy()->index(row, TrialTableModel::Time).data().toString();
        QCOMPARE(sorted, QStringList({"41.2 us", "500 us", "3 ms", "12 ms"}));
        // The trial details use the same units.
        TrialDetailsView details(data);
        details.show();
        data.select(0);
        details.refreshIfNeeded(true);
        QVERIFY(details.findChildren<QLabel*>().size() > 0);
        bool shown = false;
        for (QLabel* label : details.findChildren<QLabel*>())
            shown = shown || label->text().contains("41.2 us");
        QVERIFY(shown);
    }

    // Value axes tick on multiples of 1, 2, 2.5 or 5 x 10^k whoever sets their range; a percentage axis
    // ends at 100 %.
    void axesTickOnNiceSteps() {
        std::unique_ptr<QAbstractAxis> axis(charts::makeAxis("x", false));
        auto* value = qobject_cast<QValueAxis*>(axis.get());
        QVERIFY(value != nullptr);
        QCOMPARE(value->tickType(), QValueAxis::TicksDynamic);
        for (auto [low, high] :
             {std::pair{0.0, 1.02}, {0.0, 105.0}, {0.0, 1.0}, {3.0, 7.5}, {0.0, 49152.0}}) {
            charts::setRangeIfChanged(axis.get(), low, high);
            QVERIFY2(isNiceStep(value->tickInterval()),
                     qPrintable(QString("[%1, %2]: step %3").arg(low).arg(high).arg(value->tickInterval())));
            QVERIFY((high - low) / value->tickInterval() <= 10.0);
        }
        charts::setRange(axis.get(), 0.01, 100.0); // times: no negative axis
        QVERIFY(value->min() >= 0.0);

        RunData data;
        HardwareView hardware(data);
        for (int c = 0; c < 3; ++c) {
            auto* y = qobject_cast<QValueAxis*>(hardware.curveChart(c)->chart()->axes(Qt::Vertical).first());
            QVERIFY(y != nullptr);
            QCOMPARE(y->max(), 100.0);
            QVERIFY(isNiceStep(y->tickInterval()));
        }
        ErrorReporter errors;
        ComparisonView comparison(errors);
        auto* fraction = qobject_cast<QValueAxis*>(comparison.chart()->chart()->axes(Qt::Vertical).first());
        QVERIFY(fraction != nullptr);
        QVERIFY(isNiceStep(fraction->tickInterval()));
    }

    // Runs of another kernel (or size) are not drawn beside the current one: a 0.01 ms softmax run after
    // GEMM runs of 100 ms gets an axis of its own, from zero up; a later GEMM run of the same size shows the
    // earlier GEMM run again.
    void convergenceOverlaysComparableRunsOnly() {
        RunData data;
        ConvergenceView view(data);
        view.resize(900, 700);
        view.show();
        auto run = [&](const QString& kernel, const QString& problem, double ms) {
            RunData::Info info = runInfo(kernel);
            info.problem = problem;
            data.reset(info, twoParameters());
            std::vector<Trial> trials;
            for (std::int64_t i = 0; i < 8; ++i)
                trials.push_back(
                    okTrial(i, 1 + i % 4, 10 * (1 + i / 4), ms * (2.0 - 0.1 * static_cast<double>(i))));
            data.append(trials);
            view.refreshIfNeeded(true);
        };
        auto drawnRuns = [&] {
            int drawn = 0;
            for (QAbstractSeries* series : view.evaluationsChart()->chart()->series()) {
                auto* line = qobject_cast<QLineSeries*>(series);
                drawn += line && line->isVisible() && line->count() > 0 && line->name() != "space optimum";
            }
            return drawn;
        };
        run("gemm", "M=1024", 100.0);
        run("softmax", "n=4096", 0.01);
        QCOMPARE(drawnRuns(), 1);
        auto* y = qobject_cast<QValueAxis*>(view.evaluationsChart()->chart()->axes(Qt::Vertical).first());
        QVERIFY(y != nullptr);
        QVERIFY2(y->min() >= 0.0 && y->max() < 1.0,
                 qPrintable(QString("[%1, %2]").arg(y->min()).arg(y->max())));
        QVERIFY2(view.overlayNote().contains("1 earlier run"), qPrintable(view.overlayNote()));
        run("gemm", "M=1024", 90.0);
        QCOMPARE(drawnRuns(), 2);
        QCOMPARE(view.visibleRunCount(), 2);
        run("gemm", "M=2048", 400.0); // another size of the same kernel
        QCOMPARE(view.visibleRunCount(), 1);
        QVERIFY2(view.overlayNote().contains("3 earlier runs"), qPrintable(view.overlayNote()));
    }

    void logAxesHaveReadableTicks() {
        QCOMPARE(charts::logTicks(1.83, 3.91), QList<double>({2.0, 2.5, 3.0, 3.5}));
        QCOMPARE(charts::logTicks(0.87, 115.0), QList<double>({1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0}));
        QCOMPARE(charts::logTicks(0.0087, 115.0), QList<double>({0.01, 0.1, 1.0, 10.0, 100.0}));
        QVERIFY(charts::logTicks(1e-6, 1e6).size() <= 8);
    }

    // The cost model view: a strategy without a model says so, before and after its trials; the legend
    // names every batch colour drawn and no static model on replay data; the log axes carry several tick
    // labels; the quality curves come from the trials' stored predictions (a session reopened from the
    // records has no live tracker).
    void costModelViewSaysWhatItDraws() {
        RunData data;
        CostModelView view(data);
        view.resize(1000, 500);
        view.show();
        data.reset(runInfo("gemm", "genetic_algorithm"), twoParameters());
        view.refreshIfNeeded(true);
        QVERIFY2(view.summaryText().contains("genetic_algorithm has no cost model"),
                 qPrintable(view.summaryText()));
        std::vector<Trial> plain;
        for (std::int64_t i = 0; i < 8; ++i)
            plain.push_back(okTrial(i, 1 + i % 4, 10, 2.0 + 0.1 * static_cast<double>(i), i / 2));
        data.append(plain);
        view.refreshIfNeeded(true);
        QVERIFY2(view.summaryText().contains("genetic_algorithm has no cost model"),
                 qPrintable(view.summaryText()));

        // A finished model-guided run, as opened from the records: 12 batches of 4 predicted trials.
        RunData::Info info = runInfo("gemm", "xgb");
        data.reset(info, twoParameters());
        std::vector<Trial> trials;
        for (std::int64_t i = 0; i < 48; ++i) {
            Trial t = okTrial(i, 1 + i % 4, 10 * (1 + i / 4 % 4),
                              2.1 + 1.3 * static_cast<double>((i * 7) % 48) / 47.0, i / 4);
            t.predicted = t.measurement.objective * (1.0 + 0.05 * static_cast<double>(i % 3));
            trials.push_back(t);
        }
        data.append(trials);
        view.refreshIfNeeded(true);
        QCOMPARE(view.scatterPointCount(), 48);
        const QStringList legend = view.legendEntries();
        QVERIFY2(!legend.join(";").contains("static"), qPrintable(legend.join("; ")));
        int batchEntries = 0;
        for (const QString& name : legend)
            batchEntries += name.startsWith("batch");
        QVERIFY2(batchEntries == CostModelView::kBatchGroups, qPrintable(legend.join("; ")));
        QVERIFY(legend.contains("batches 0-1"));
        QVERIFY(legend.contains("batches 10-11"));
        for (Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
            auto* axis = qobject_cast<QCategoryAxis*>(view.scatterChart()->chart()->axes(o).first());
            QVERIFY(axis != nullptr);
            QVERIFY2(axis->categoriesLabels().size() >= 3, qPrintable(axis->categoriesLabels().join(", ")));
        }
        // 12 batches: a quality point after each from the 4th predicted trial on, as the live tracker adds.
        ModelQualityTracker live;
        for (std::size_t b = 0; b < 12; ++b) {
            for (std::size_t i = 0; i < 4; ++i)
                live.trialFinished(trials[b * 4 + i]);
            SessionProgress progress;
            progress.evaluations = static_cast<std::int64_t>(b * 4 + 4);
            live.progress(progress);
        }
        QVERIFY(!live.points().empty());
        QCOMPARE(view.qualityPointCount(), static_cast<int>(live.points().size()));

        // While the run goes on its last batch may still grow; its end closes it, without a timer tick.
        info.status = "running";
        data.reset(info, twoParameters());
        data.append(trials);
        view.refreshIfNeeded(true);
        QCOMPARE(view.qualityPointCount(), static_cast<int>(live.points().size()) - 1);
        data.setStatus("completed");
        QCOMPARE(view.qualityPointCount(), static_cast<int>(live.points().size()));
    }
};

QTEST_MAIN(TestGuiDataAgreement)
#include "TestGuiDataAgreement.moc"
