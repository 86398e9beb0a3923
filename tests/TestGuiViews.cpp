// Every view renders what the run holds, offscreen: pixels are checked in each chart's area (coloured data
// marks, not just axes), the explorer's plots agree with the trials, selection is shared, the hardware view
// draws core's occupancy curves, and the screenshot mode works offscreen and under Xvfb.
#include "charts/ChartSupport.h"
#include "charts/HeatmapWidget.h"
#include "charts/HistogramWidget.h"
#include "charts/MarginalPlotWidget.h"
#include "charts/ParallelCoordinatesWidget.h"
#include "data/OccupancyPlot.h"
#include "data/RunData.h"
#include "data/TrialFilterProxy.h"
#include "data/TrialTableModel.h"
#include "views/ConvergenceView.h"
#include "views/CostModelView.h"
#include "views/ExplorerView.h"
#include "views/HardwareView.h"
#include "views/RecordsView.h"
#include "views/TrialDetailsView.h"
#include "window/ErrorReporter.h"
#include "window/MainWindow.h"
#include "window/OptionForm.h"
#include "window/TaskPanel.h"
#include "window/TimeFormat.h"

#include "hardware/GpuDatabase.h"
#include "hardware/OccupancyCalculator.h"
#include "hardware/StaticEstimateFit.h"
#include "strategies/StrategyRegistry.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineSeries>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QXYSeries>
#include <QtTest>
#include <cmath>

using namespace ts;
using namespace ts::gui;

namespace {

const QString kGemm = TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz";

// Share of pixels that are clearly coloured (data marks: series, cells, bars), as opposed to the white,
// grey and black of backgrounds, grids, axes and text.
double colouredShare(const QImage& image) {
    if (image.isNull())
        return 0.0;
    qint64 coloured = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            QColor c = image.pixelColor(x, y);
            if (c.hsvSaturationF() > 0.35 && c.valueF() > 0.2)
                ++coloured;
        }
    return double(coloured) / (double(image.width()) * image.height());
}

// Share of dark pixels (text, lines).
double inkShare(const QImage& image) {
    qint64 dark = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (image.pixelColor(x, y).lightnessF() < 0.5)
                ++dark;
    return double(dark) / (double(image.width()) * image.height());
}

QImage shot(QWidget* widget) {
    return widget->grab().toImage();
}

} // namespace

class TestGuiViews : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("TunescopeTest");
        QCoreApplication::setApplicationName("TestGuiViews");
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        // One model-guided session on the GEMM space feeds every view.
        m_window = std::make_unique<MainWindow>();
        m_window->errors().setInteractive(false);
        m_window->setDatabasePath(m_dir.filePath("records.db"));
        m_window->resize(1500, 950);
        m_window->show();
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDataset(kGemm);
        QVERIFY(loaded.wait(30000));
        SessionPlan task = m_window->taskPanel()->task();
        task.strategy = "xgb";
        task.options.clear();
        task.budget = 120;
        task.mode = SpaceMode::Product;
        task.seed = 3;
        m_window->taskPanel()->setTask(task);
        QSignalSpy ended(m_window.get(), &MainWindow::sessionEnded);
        QVERIFY(m_window->startSession());
        QVERIFY(ended.wait(120000));
        QCOMPARE(ended.first().first().toString(), QString("completed"));
        QCOMPARE(m_window->runData().trials().size(), std::size_t{120});
        m_window->runData().select(static_cast<int>(*m_window->runData().bestRow()));
    }

    void cleanupTestCase() { m_window.reset(); }

    void convergenceChartsDrawTheRun() {
        m_window->showView("convergence");
        m_window->refreshNow(true);
        ConvergenceView* view = m_window->convergenceView();
        QVERIFY(view->currentSeries(0)->count() > 1);
        QVERIFY(view->currentSeries(1)->count() > 1);
        QVERIFY(colouredShare(shot(view->evaluationsChart())) > 0.001);
        QVERIFY(colouredShare(shot(view->timeChart())) > 0.001);
        // Log scale keeps the points and the picture.
        view->setLogScale(true);
        m_window->refreshNow(true);
        QVERIFY(colouredShare(shot(view->evaluationsChart())) > 0.001);
        view->setLogScale(false);
    }

    void costModelViewDrawsPredictions() {
        m_window->showView("costmodel");
        m_window->refreshNow(true);
        CostModelView* view = m_window->costModelView();
        int predicted = 0;
        for (const Trial& t : m_window->runData().trials())
            predicted += t.measurement.status == MeasureStatus::Ok && t.predicted && *t.predicted > 0;
        QVERIFY(predicted > 0);
        QCOMPARE(view->scatterPointCount(), predicted); // fewer than the decimation cap
        QVERIFY(view->qualityPointCount() > 0);
        QVERIFY(colouredShare(shot(view->scatterChart())) > 0.001);
        QVERIFY(colouredShare(shot(view->qualityChart())) > 0.001);
    }

    // A GPU session's static estimates (stored by the cuda backend) are drawn, calibrated, beside the
    // learned model's predictions, with their Spearman correlation in the summary.
    void costModelViewDrawsStaticEstimates() {
        RunData data;
        data.reset({"cuda run", "gemm", "cuda: GPU", "random_sample", "completed", 1, 8, std::nullopt, {}},
                   {Parameter{"X",
                              ParameterType::Integer,
                              {std::int64_t(1), std::int64_t(2), std::int64_t(3), std::int64_t(4)}}});
        std::vector<Trial> trials;
        for (int i = 0; i < 4; ++i) {
            Trial t;
            t.number = i;
            t.index = i;
            t.config = {std::int64_t(i + 1)};
            t.measurement.status = MeasureStatus::Ok;
            t.measurement.objective = 2.0 + i;
            t.measurement.metrics[kStaticEstimateMetric] = 1.0 + (i == 3 ? -0.5 : i); // one out of order
            trials.push_back(t);
        }
        data.append(trials);
        CostModelView view(data);
        view.resize(900, 500);
        view.show();
        view.refreshIfNeeded(true);
        QCOMPARE(view.staticPointCount(), 4);
        QCOMPARE(view.scatterPointCount(), 0); // no model-guided predictions in this run
        QVERIFY2(view.summaryText().contains("Spearman -0.20 against the measured times of 4 trials"),
                 qPrintable(view.summaryText()));
    }

    void explorerPlotsAgreeWithTrials() {
        m_window->showView("explorer");
        ExplorerView* view = m_window->explorerView();
        const RunData& data = m_window->runData();
        for (int tab = 0; tab < view->plots()->count(); ++tab) {
            view->plots()->setCurrentIndex(tab);
            m_window->refreshNow(true);
            QApplication::processEvents();
            QVERIFY2(colouredShare(shot(view->plots()->currentWidget())) > 0.002,
                     qPrintable(view->plots()->tabText(tab)));
        }
        // Heatmap: every cell's best is the fastest Ok trial with those two values.
        view->heatmap()->setParameters(0, 1);
        const HeatmapData& h = view->heatmap()->heatmap();
        int checked = 0;
        for (int r = 0; r < h.rows; ++r)
            for (int c = 0; c < h.columns; ++c) {
                double best = INFINITY;
                for (const Trial& t : data.trials())
                    if (t.measurement.status == MeasureStatus::Ok && data.position(0, t.config[0]) == c &&
                        data.position(1, t.config[1]) == r)
                        best = std::min(best, t.measurement.objective);
                QCOMPARE(h.at(c, r), best);
                checked += std::isfinite(best);
            }
        QVERIFY(checked > 0);
        // Marginals: the best per value of a parameter includes the overall best.
        view->marginals()->recompute();
        double overall = data.trials()[*data.bestRow()].measurement.objective;
        for (const auto& m : view->marginals()->marginals())
            QCOMPARE(*std::min_element(m.best.begin(), m.best.end()), overall);
    }

    // The marginals have axes: every panel labels its first and last value (and what fits between, no two
    // labels overlapping), the shared time ticks are labelled left of the first column with the window's time
    // format, and a legend says what is drawn.
    void marginalsHaveAxesAndLegend() {
        m_window->showView("explorer");
        ExplorerView* view = m_window->explorerView();
        MarginalPlotWidget* marginals = view->marginals();
        view->plots()->setCurrentWidget(marginals);
        marginals->resize(900, 600);
        m_window->refreshNow(true);
        marginals->recompute();
        const RunData& data = m_window->runData();
        const auto values = marginals->valueLabels();
        for (const Parameter& p : data.parameters()) {
            if (p.values.size() < 2)
                continue;
            for (const Value& v : {p.values.front(), p.values.back()}) {
                const QString text = QString::fromStdString(toString(v));
                const bool found = std::any_of(values.begin(), values.end(),
                                               [&](const auto& label) { return label.text == text; });
                QVERIFY2(found, qPrintable(QString::fromStdString(p.name) + " " + text));
            }
        }
        for (std::size_t i = 0; i < values.size(); ++i)
            for (std::size_t j = i + 1; j < values.size(); ++j)
                QVERIFY2(!values[i].rect.intersects(values[j].rect),
                         qPrintable(values[i].text + " overlaps " + values[j].text));
        const auto times = marginals->timeLabels();
        QVERIFY(times.size() >= 2);
        double lo = INFINITY, hi = 0;
        for (const Trial& t : data.trials())
            if (t.measurement.status == MeasureStatus::Ok) {
                lo = std::min(lo, t.measurement.objective);
                hi = std::max(hi, t.measurement.objective);
            }
        QStringList expected;
        for (double tick : charts::logTicks(lo, hi))
            if (tick >= lo * (1 - 1e-9) && tick <= hi * (1 + 1e-9))
                expected << formatMs(tick);
        for (const auto& label : times)
            QVERIFY2(expected.contains(label.text),
                     qPrintable(label.text + " not in " + expected.join(", ")));
        QVERIFY(marginals->legend().contains("median"));
        if (!qEnvironmentVariableIsEmpty("TS_SAVE_SHOTS"))
            shot(marginals).save(qEnvironmentVariable("TS_SAVE_SHOTS") + "/marginals.png");
    }

    void tableFiltersAndSorts() {
        ExplorerView* view = m_window->explorerView();
        TrialFilterProxy* proxy = view->proxy();
        const auto& trials = m_window->runData().trials();
        int ok = 0;
        for (const Trial& t : trials)
            ok += t.measurement.status == MeasureStatus::Ok;
        proxy->setStatuses({MeasureStatus::Ok});
        QCOMPARE(proxy->rowCount(), ok);
        proxy->setStatuses({});
        QCOMPARE(proxy->rowCount(), static_cast<int>(trials.size()));
        // A parameter range keeps exactly the trials inside it.
        const Parameter& p = m_window->runData().parameters()[0];
        double low = toNumber(p.values[0]), high = toNumber(p.values[1]);
        int inside = 0;
        for (const Trial& t : trials)
            inside += toNumber(t.config[0]) >= low && toNumber(t.config[0]) <= high;
        proxy->setParameterRange(0, low, high);
        QCOMPARE(proxy->rowCount(), inside);
        proxy->clearParameterRanges();
        // Brushing the first axis over its two lowest values filters the table the same way.
        double top = 1.0 / std::max<std::size_t>(1, p.values.size() - 1);
        view->parallelCoordinates()->setBrush(0, 0.0, top);
        QCOMPARE(proxy->rowCount(), inside);
        view->parallelCoordinates()->clearBrushes();
        QCOMPARE(proxy->rowCount(), static_cast<int>(trials.size()));
        // Sorting by time puts the best trial first.
        view->table()->sortByColumn(TrialTableModel::Time, Qt::AscendingOrder);
        QCOMPARE(proxy->mapToSource(proxy->index(0, 0)).row(),
                 static_cast<int>(*m_window->runData().bestRow()));
        view->table()->sortByColumn(TrialTableModel::Number, Qt::AscendingOrder);
    }

    void selectionIsSharedAndDetailed() {
        RunData& data = m_window->runData();
        ExplorerView* view = m_window->explorerView();
        // Select in the table: every view follows.
        int row = 7;
        view->table()->selectRow(view->proxy()->mapFromSource(view->model()->index(row, 0)).row());
        QCOMPARE(data.selectedRow(), row);
        // Select in the data (as the heatmap does): the table follows and the details show the trial.
        int best = static_cast<int>(*data.bestRow());
        data.select(best);
        QCOMPARE(view->proxy()->mapToSource(view->table()->currentIndex()).row(), best);
        TrialDetailsView* details = m_window->detailsView();
        QVERIFY(details->summary()->text().contains(QString("Trial %1 ").arg(best + 1)));
        QVERIFY(!details->histogram()->bins().empty());
        QVERIFY(colouredShare(shot(details->histogram())) > 0.01);
    }

    void hardwareViewShowsDeviceAndOccupancy() {
        m_window->showView("hardware");
        HardwareView* view = m_window->hardwareView();
        QVERIFY(view->gpu().has_value()); // the dataset's "NVIDIA GeForce RTX 3090" is in the database
        QCOMPARE(view->gpu()->computeCapability(), std::string("8.6"));
        QVERIFY(view->features()->rowCount() >= 10);
        QVERIFY(inkShare(shot(view->features())) > 0.005);
#ifdef TUNESCOPE_WITH_CUDA
        // Replay trials carry no resources (this dataset ships no profile), but CLBlast's Xgemm is a dataset
        // kernel (resources/dataset-kernels/gemm_clblast): the selected trial is compiled with NVRTC off the
        // UI thread, and its registers, occupancy and marked curves follow.
        QTRY_VERIFY2_WITH_TIMEOUT(view->resources()->text().contains("registers per thread"),
                                  qPrintable(view->resources()->text()), 120000);
        QCOMPARE(static_cast<QXYSeries*>(view->curveChart(0)->chart()->series()[1])->count(), 1);
#endif

        // A trial with resources (as the CUDA backend records them): core's occupancy, drawn.
        RunData data;
        HardwareView hardware(data);
        hardware.resize(1200, 700);
        hardware.show();
        hardware.setDeviceName("NVIDIA GeForce RTX 3090");
        std::vector<Parameter> parameters{{"block_size_x", ParameterType::Integer, {std::int64_t{256}}}};
        data.reset({}, parameters);
        Trial trial;
        trial.config = {std::int64_t{256}};
        trial.measurement.status = MeasureStatus::Ok;
        trial.measurement.objective = 1.0;
        trial.measurement.metrics = {{"registers", 64}, {"shared_bytes", 0}};
        data.append({trial});
        data.select(0);
        hardware.refreshIfNeeded(true);
        if (!OccupancyCalculator::available())
            QSKIP("Built without cuda_occupancy.h: no occupancy curves.");
        Occupancy expected = OccupancyCalculator(*GpuDatabase::builtin().find("RTX 3090"))
                                 .compute(KernelResources{64, 0}, 256);
        QCOMPARE(expected.occupancy, 4.0 * 8 / 48); // platform notes: 8.6, 256 threads, 64 regs -> 66.7 %
        QVERIFY(
            hardware.resources()->text().contains(QString::number(expected.occupancy * 100, 'f', 1) + "%"));
        for (int c = 0; c < 3; ++c) {
            auto series = hardware.curveChart(c)->chart()->series();
            QCOMPARE(series.size(), 2);
            QVERIFY(static_cast<QXYSeries*>(series[0])->count() > 10);
            QCOMPARE(static_cast<QXYSeries*>(series[1])->count(), 1);
            QCOMPARE(static_cast<QXYSeries*>(series[1])->at(0).y(), expected.occupancy * 100);
            QVERIFY(colouredShare(shot(hardware.curveChart(c))) > 0.001);
            const auto* line = static_cast<QXYSeries*>(series[0]);
            for (qsizetype i = 1; i < line->count(); ++i)
                QVERIFY2(line->at(i - 1).x() <= line->at(i).x(), qPrintable(QString("curve %1").arg(c)));
        }

        // The plot is computed sorted by x whatever order the points come in, so the line never doubles back;
        // shared memory in KB, occupancy in percent.
        OccupancyCurves unsorted;
        for (double x : {512.0, 96.0, 1024.0, 100.0, 32.0})
            unsorted.threads.points.push_back({x, x / 1024, 0, 0});
        unsorted.threads.marked = {100.0, 100.0 / 1024, 0, 0};
        unsorted.sharedMemory.points = {{4096, 0.5, 0, 0}, {1024, 1.0, 0, 0}};
        const OccupancyPlot plot = OccupancyPlot::of(unsorted);
        const QList<QPointF> threads = plot.lines[OccupancyPlot::Threads].points;
        QCOMPARE(threads.size(), 5);
        for (qsizetype i = 1; i < threads.size(); ++i)
            QVERIFY(threads[i - 1].x() < threads[i].x());
        QCOMPARE(threads.front(), QPointF(32.0, 100.0 * 32 / 1024));
        QCOMPARE(plot.lines[OccupancyPlot::Threads].mark, QPointF(100.0, 100.0 * 100 / 1024));
        QCOMPARE(plot.lines[OccupancyPlot::Threads].xMax, 1024.0);
        QCOMPARE(plot.lines[OccupancyPlot::SharedMemory].points,
                 QList<QPointF>({QPointF(1.0, 100.0), QPointF(4.0, 50.0)}));
    }

    void recordsViewListsTheSession() {
        m_window->showView("records");
        RecordsView* view = m_window->recordsView();
        view->reload();
        QCOMPARE(static_cast<int>(view->sessions().size()), 1);
        QCOMPARE(view->table()->item(0, 0)->text(), QString::number(m_window->runData().info().sessionId));
        QCOMPARE(view->table()->item(0, 2)->text(), QString("completed"));
        QRect firstRow = view->table()
                             ->visualRect(view->table()->model()->index(0, 0))
                             .united(view->table()->visualRect(view->table()->model()->index(0, 5)));
        QVERIFY(inkShare(view->table()->viewport()->grab(firstRow).toImage()) > 0.01);
    }

    // The option form follows the table: integers get a spin box over their range, choices a combo box of
    // them, and only values that differ from the defaults are passed on.
    void optionFormFollowsTheTable() {
        gui::OptionForm form;
        form.setOptions(StrategyRegistry::builtin().entry("greedy_ils").options);
        auto* neighbor = form.findChild<QComboBox*>("option_neighbor");
        QVERIFY(neighbor);
        QCOMPARE(neighbor->count(), 2);
        QCOMPARE(neighbor->currentText(), QString("Hamming"));
        auto* climbs = form.findChild<QSpinBox*>("option_no_improvement");
        QVERIFY(climbs);
        QCOMPARE(climbs->minimum(), 0);
        QCOMPARE(climbs->maximum(), 1000000);
        QCOMPARE(climbs->value(), 50);
        QVERIFY(form.findChild<QCheckBox*>("option_restart"));
        QVERIFY(form.values().empty());
        climbs->setValue(-5); // clamped by the spin box
        neighbor->setCurrentText("adjacent");
        const std::map<std::string, std::string> changed{{"neighbor", "adjacent"}, {"no_improvement", "0"}};
        QVERIFY(form.values() == changed);
        form.setValues({{"no_improvement", "7"}, {"neighbor", "Hamming"}});
        QCOMPARE(climbs->value(), 7);
        QCOMPARE(neighbor->currentText(), QString("Hamming"));
    }

    void screenshotModeOffscreen() {
        QString png = m_dir.filePath("explorer.png");
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        process.setProcessEnvironment(env);
        process.start(TUNESCOPE_GUI, {"--screenshot", png, "--after", "40", "--view", "explorer",
                                      "--strategy", "random_sample", "--budget", "200", "--db",
                                      m_dir.filePath("shots.db"), "--size", "1200x800"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        QImage image(png);
        QCOMPARE(image.width(), 1200); // every dock scrolls rather than widen the window
        QCOMPARE(image.height(), 800);
        QVERIFY(colouredShare(image) > 0.01);

        // A bad view name is refused with a message naming it.
        process.start(TUNESCOPE_GUI, {"--screenshot", m_dir.filePath("bad.png"), "--view", "nowhere"});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(process.readAllStandardError().contains("nowhere"));
    }

    void screenshotModeUnderXvfb() {
        QString xvfb = QStandardPaths::findExecutable("xvfb-run");
        if (xvfb.isEmpty())
            QSKIP("xvfb-run is not installed.");
        QString png = m_dir.filePath("convergence-xvfb.png");
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("QT_QPA_PLATFORM");
        process.setProcessEnvironment(env);
        process.start(xvfb, {"-a", "-s", "-screen 0 1600x1000x24", TUNESCOPE_GUI, "--screenshot", png,
                             "--after", "30", "--view", "convergence", "--strategy", "random_sample",
                             "--budget", "100", "--db", m_dir.filePath("xvfb.db"), "--size", "1200x800"});
        QVERIFY(process.waitForFinished(90000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(colouredShare(image) > 0.002);
    }

    // The session reopened from the records in a new window (no live session behind it) draws the model
    // quality the live run drew, from the predictions stored with its trials.
    void reopenedSessionDrawsItsModelQuality() {
        m_window->showView("costmodel");
        m_window->refreshNow(true);
        const int live = m_window->costModelView()->qualityPointCount();
        QVERIFY(live > 0);
        MainWindow reopened;
        reopened.errors().setInteractive(false);
        reopened.setDatabasePath(m_dir.filePath("records.db"));
        reopened.resize(1500, 950);
        reopened.show();
        reopened.showView("costmodel");
        reopened.openSession(m_window->runData().info().sessionId);
        QCOMPARE(reopened.runData().trials().size(), std::size_t{120});
        reopened.refreshNow(true);
        CostModelView* view = reopened.costModelView();
        QCOMPARE(view->qualityPointCount(), live);
        QVERIFY(colouredShare(shot(view->qualityChart())) > 0.001);
    }
};

QTEST_MAIN(TestGuiViews)
#include "TestGuiViews.moc"
