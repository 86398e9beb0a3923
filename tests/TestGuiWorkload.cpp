// The window's Workload view, offscreen: a small replay workload (three bundled datasets) run through the
// view's runner and checked against the records database (the task table, the end-to-end curve's last point,
// the stacked trials, the progress), selecting a task shows its session in the other views, pause / resume /
// stop through the buttons, and input that cannot run is one error that records nothing.
#include "views/ConvergenceView.h"
#include "views/ExplorerView.h"
#include "window/ErrorReporter.h"
#include "window/MainWindow.h"
#if TUNESCOPE_WITH_ONNX
#include "window/ModelWorkloadDialog.h"
#include "window/WorkloadFromModel.h"
#endif
#include "data/TrialTableModel.h"
#include "data/WorkloadTaskModel.h"
#include "views/WorkloadView.h"

#include "datasets/DatasetReader.h"
#include "store/RecordStore.h"

#include <QAreaSeries>
#include <QLabel>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

using namespace ts;
using namespace ts::gui;

namespace {

const std::string kDatasets = TUNESCOPE_RESOURCES "/datasets/";

WorkloadTaskPlan replayTask(const std::string& name, const std::string& dataset, double weight) {
    WorkloadTaskPlan task;
    task.name = name;
    task.weight = weight;
    task.plan.backend = "replay";
    task.plan.dataset = kDatasets + dataset;
    task.plan.strategy = "random_sample";
    task.plan.batchSize = 4;
    return task;
}

WorkloadPlan replayWorkload(std::int64_t budget, std::size_t batch = 4) {
    WorkloadPlan plan;
    plan.name = "gui-replay";
    plan.backend = "replay";
    plan.scheduler = "round_robin";
    plan.seed = 7;
    plan.budget = budget;
    plan.tasks = {replayTask("pnpoly", "pnpoly_RTX_3090.json.gz", 3.0),
                  replayTask("gemm", "gemm_clblast_RTX_3090.json.gz", 1.0),
                  replayTask("conv", "convolution_2021_RTX_3090.json.gz", 0.5)};
    for (WorkloadTaskPlan& task : plan.tasks)
        task.plan.batchSize = batch;
    return plan;
}

struct Stored {
    std::int64_t trials = 0;
    double best = INFINITY;
};

Stored stored(const RecordStore& store, std::int64_t session) {
    Stored s;
    for (const StoredTrial& trial : store.trials(session)) {
        ++s.trials;
        if (trial.status == toString(MeasureStatus::Ok))
            s.best = std::min(s.best, trial.objective);
    }
    return s;
}

bool close(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

} // namespace

class TestGuiWorkload : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_dbCount = 0;
    std::unique_ptr<MainWindow> m_window; // the window of the completed workload (shared by two cases)
    QSignalSpy* m_errors = nullptr;

    std::unique_ptr<MainWindow> window() {
        auto w = std::make_unique<MainWindow>();
        w->errors().setInteractive(false);
        w->setDatabasePath(m_dir.filePath(QString("records-%1.db").arg(++m_dbCount)));
        w->resize(1500, 950);
        w->show();
        w->showView("workload");
        return w;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("TunescopeTest");
        QCoreApplication::setApplicationName("TestGuiWorkload");
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_window = window();
        m_errors = new QSignalSpy(&m_window->errors(), &ErrorReporter::reported);
    }

    void cleanupTestCase() {
        delete m_errors;
        m_window.reset();
    }

    void taskTableAgreesWithDatabase() {
        WorkloadView* view = m_window->workloadView();
        QSignalSpy finished(view, &WorkloadView::finished);
        QVERIFY(view->startWorkload(replayWorkload(40)));
        QVERIFY(!view->startButton()->isEnabled());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().first().toString(), QString("budget"));
        QCOMPARE(m_errors->count(), 0);
        QVERIFY(view->startButton()->isEnabled());
        QVERIFY(!view->stopButton()->isEnabled());

        RecordStore store(m_window->databasePath().toStdString(), DatabaseAccess::ReadOnly);
        QVERIFY(view->workloadId().has_value());
        const std::optional<WorkloadRecord> record = store.workload(*view->workloadId());
        QVERIFY(record.has_value());
        QCOMPARE(record->status, std::string("completed"));
        const WorkloadTaskModel* model = view->taskModel();
        QCOMPARE(model->rowCount(), static_cast<int>(record->tasks.size()));
        std::int64_t total = 0;
        double endToEnd = 0.0;
        for (const WorkloadTaskRecord& task : record->tasks) {
            QVERIFY(task.session.has_value());
            const Stored s = stored(store, *task.session);
            const int row = task.position;
            const QString name = QString::fromStdString(task.name);
            QCOMPARE(model->index(row, WorkloadTaskModel::Task).data().toString(), name);
            QCOMPARE(
                model->index(row, WorkloadTaskModel::Weight).data(WorkloadTaskModel::kSortRole).toDouble(),
                task.weight);
            QCOMPARE(
                model->index(row, WorkloadTaskModel::Trials).data(WorkloadTaskModel::kSortRole).toLongLong(),
                s.trials);
            QVERIFY2(std::isfinite(s.best), qPrintable(name));
            QCOMPARE(model->index(row, WorkloadTaskModel::Best).data(WorkloadTaskModel::kSortRole).toDouble(),
                     s.best);
            QCOMPARE(model->index(row, WorkloadTaskModel::Status).data().toString(),
                     QString::fromStdString(task.status));
            QCOMPARE(model->index(row, WorkloadTaskModel::Session)
                         .data(WorkloadTaskModel::kSessionRole)
                         .toLongLong(),
                     *task.session);
            total += s.trials;
            endToEnd += task.weight * s.best;
        }
        QCOMPARE(total, std::int64_t{40});
        // Shares: weight x best over the sum, from the database's bests.
        for (const WorkloadTaskRecord& task : record->tasks) {
            const double share = model->index(task.position, WorkloadTaskModel::Share)
                                     .data(WorkloadTaskModel::kSortRole)
                                     .toDouble();
            QVERIFY2(close(share, task.weight * stored(store, *task.session).best / endToEnd),
                     task.name.c_str());
        }

        // The end-to-end curve ends at the budget with the sum of weight x best from the database; the oracle
        // is the sum of weight x each dataset's optimum, at or below it.
        view->refreshNow();
        QLineSeries* curve = view->currentEndToEnd();
        QVERIFY(curve && curve->count() > 0);
        const QPointF last = curve->at(curve->count() - 1);
        QCOMPARE(last.x(), 40.0);
        QVERIFY2(close(last.y(), endToEnd), qPrintable(QString("%1 vs %2").arg(last.y()).arg(endToEnd)));
        for (const QPointF& p : curve->points())
            QVERIFY(p.y() >= last.y() * (1 - 1e-12)); // the estimate only improves
        double oracle = 0.0;
        for (const WorkloadTaskPlan& task : replayWorkload(40).tasks)
            oracle += task.weight * *readDataset(task.plan.dataset).optimum();
        QVERIFY(view->oracleSeries()->isVisible());
        QCOMPARE(view->oracleSeries()->count(), 2);
        QVERIFY(close(view->oracleSeries()->at(0).y(), oracle));
        QVERIFY(oracle <= endToEnd);

        // Stacked trials: each band's height at the end is its task's stored trial count; the top is the
        // total.
        const std::vector<QAreaSeries*>& areas = view->trialAreas();
        QCOMPARE(areas.size(), record->tasks.size());
        double below = 0.0;
        for (const WorkloadTaskRecord& task : record->tasks) {
            QAreaSeries* area = areas[static_cast<std::size_t>(task.position)];
            const QPointF top = area->upperSeries()->at(area->upperSeries()->count() - 1);
            QCOMPARE(top.x(), 40.0);
            QCOMPARE(top.y() - below, static_cast<double>(stored(store, *task.session).trials));
            below = top.y();
        }
        QCOMPARE(below, 40.0);
        QCOMPARE(view->progressBar()->value(), 40);
        QCOMPARE(view->progressBar()->maximum(), 40);
    }

    // Sorted by best time, every row selected in turn shows that task's session in every view.
    void selectingATaskShowsItsSession() {
        WorkloadView* view = m_window->workloadView();
        QVERIFY(view->workloadId().has_value());
        RecordStore store(m_window->databasePath().toStdString(), DatabaseAccess::ReadOnly);
        const WorkloadRecord record = *store.workload(*view->workloadId());
        view->taskTable()->sortByColumn(WorkloadTaskModel::Best, Qt::AscendingOrder);
        QSortFilterProxyModel* proxy = view->proxy();
        QCOMPARE(proxy->rowCount(), 3);
        QVERIFY(proxy->index(0, WorkloadTaskModel::Best).data(WorkloadTaskModel::kSortRole).toDouble() <=
                proxy->index(2, WorkloadTaskModel::Best).data(WorkloadTaskModel::kSortRole).toDouble());
        // The sort moves rows (the light convolution is fastest), so a row read unmapped would be another
        // task.
        QVERIFY(proxy->mapToSource(proxy->index(0, 0)).row() != 0);
        for (int row : {2, 0, 1}) {
            const QString name = proxy->index(row, WorkloadTaskModel::Task).data().toString();
            const auto task =
                std::find_if(record.tasks.begin(), record.tasks.end(),
                             [&](const WorkloadTaskRecord& t) { return t.name == name.toStdString(); });
            QVERIFY2(task != record.tasks.end(), qPrintable(name));
            view->taskTable()->selectRow(row);
            QCOMPARE(m_window->runData().info().sessionId, *task->session);
            const std::int64_t trials = stored(store, *task->session).trials;
            QCOMPARE(static_cast<std::int64_t>(m_window->runData().trials().size()), trials);
            QCOMPARE(static_cast<std::int64_t>(m_window->explorerView()->model()->rowCount()), trials);
            QVERIFY(m_window->runData().bestRow().has_value());
            QCOMPARE(m_window->runData().trials()[*m_window->runData().bestRow()].measurement.objective,
                     stored(store, *task->session).best);
        }
        QCOMPARE(m_errors->count(), 0);
    }

    // A second run is overlaid on the first. Paused, it settles after the round in flight and measures
    // nothing more until resumed; paused again, Stop still ends it (cancelled); the table agrees with the
    // records.
    void pauseResumeStopThroughTheButtons() {
        WorkloadView* view = m_window->workloadView();
        QSignalSpy finished(view, &WorkloadView::finished);
        QSignalSpy rounds(&view->runner(), &WorkloadRunner::roundFinished);
        // One trial a round over three large spaces: far more rounds than the test waits for. The worker runs
        // ahead of the window's queued signals; with random_sample (well under a millisecond a round) a
        // loaded machine let it exhaust all three spaces before the first ten rounds were shown and Pause was
        // clicked. xgb fits its model every round, so the workload cannot end on its own within the test.
        WorkloadPlan plan = replayWorkload(30000, 1);
        for (WorkloadTaskPlan& task : plan.tasks)
            task.plan.strategy = "default";
        QVERIFY(view->startWorkload(plan));
        QCOMPARE(view->runCount(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(rounds.count() > 10, 30000);
        QTest::mouseClick(view->pauseButton(), Qt::LeftButton);
        QVERIFY(view->runner().isPaused());
        QVERIFY(view->resumeButton()->isEnabled());
        QVERIFY(!view->pauseButton()->isEnabled());
        QVERIFY(view->etaLabel()->text().contains("paused"));
        // Unpaused, a round of one replayed trial takes milliseconds: a count unchanged for 500 ms is held.
        qsizetype held = -1;
        for (int i = 0; i < 20 && held != rounds.count(); ++i) {
            held = rounds.count();
            QTest::qWait(500);
        }
        QCOMPARE(rounds.count(), held);
        QVERIFY(view->runner().isRunning());
        // A task still tuning opens with the trials stored so far: as many as the table counts for it.
        {
            const int row = view->proxy()->mapFromSource(view->taskModel()->index(1, 0)).row();
            const WorkloadTaskModel::Row& task = view->taskModel()->rows()[1];
            QCOMPARE(task.status, QString("tuning"));
            view->taskTable()->selectRow(row);
            QCOMPARE(m_window->runData().info().sessionId, *task.session);
            QCOMPARE(static_cast<std::int64_t>(m_window->runData().trials().size()), task.trials);
        }

        QTest::mouseClick(view->resumeButton(), Qt::LeftButton);
        QVERIFY(!view->runner().isPaused());
        QTRY_VERIFY_WITH_TIMEOUT(rounds.count() > held + 10, 30000);
        QTest::mouseClick(view->pauseButton(), Qt::LeftButton);
        QTest::mouseClick(view->stopButton(), Qt::LeftButton); // a paused workload stops too
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.first().first().toString(), QString("cancelled"));
        QCOMPARE(m_errors->count(), 0);

        RecordStore store(m_window->databasePath().toStdString(), DatabaseAccess::ReadOnly);
        const WorkloadRecord record = *store.workload(*view->workloadId());
        QCOMPARE(record.status, std::string("cancelled"));
        std::int64_t total = 0;
        for (const WorkloadTaskRecord& task : record.tasks) {
            const std::int64_t trials = task.session ? stored(store, *task.session).trials : 0;
            QCOMPARE(view->taskModel()->rows()[static_cast<std::size_t>(task.position)].trials, trials);
            QCOMPARE(view->taskModel()->rows()[static_cast<std::size_t>(task.position)].status,
                     QString::fromStdString(task.status));
            total += trials;
        }
        QVERIFY(total > 10 && total < 30000);
        QCOMPARE(view->progressBar()->value(), static_cast<int>(total));
        QCOMPARE(view->currentEndToEnd()->at(view->currentEndToEnd()->count() - 1).x(),
                 static_cast<double>(total));
    }

    // A task with no valid config is marked failed with its sentence (no dialog) and the others share the
    // budget; the end-to-end curve sums the tasks with a best, and there is no oracle.
    void failedTaskIsMarkedAndTheOthersGoOn() {
        auto w = window();
        QSignalSpy errors(&w->errors(), &ErrorReporter::reported);
        WorkloadView* view = w->workloadView();
        WorkloadPlan plan = replayWorkload(24);
        plan.tasks[1].plan.constraints = {"MWG < 0"}; // no config of the gemm dataset is left
        QSignalSpy finished(view, &WorkloadView::finished);
        QVERIFY(view->startWorkload(plan));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().first().toString(), QString("budget"));
        QCOMPARE(errors.count(), 0);

        RecordStore store(w->databasePath().toStdString(), DatabaseAccess::ReadOnly);
        const WorkloadRecord record = *store.workload(*view->workloadId());
        QCOMPARE(record.tasks[1].status, std::string("failed"));
        const QModelIndex status = view->taskModel()->index(1, WorkloadTaskModel::Status);
        QCOMPARE(status.data().toString(), QString("failed"));
        QCOMPARE(status.data(Qt::ToolTipRole).toString(), QString::fromStdString(record.tasks[1].error));
        QVERIFY(view->taskModel()->index(1, WorkloadTaskModel::Share).data().toString().isEmpty());
        double endToEnd = 0.0;
        std::int64_t total = 0;
        for (int i : {0, 2}) {
            const Stored s = stored(store, *record.tasks[static_cast<std::size_t>(i)].session);
            QCOMPARE(view->taskModel()->rows()[static_cast<std::size_t>(i)].trials, s.trials);
            endToEnd += record.tasks[static_cast<std::size_t>(i)].weight * s.best;
            total += s.trials;
        }
        QCOMPARE(total, std::int64_t{24});
        view->refreshNow();
        QLineSeries* curve = view->currentEndToEnd();
        QVERIFY(curve->count() > 0);
        QCOMPARE(curve->at(curve->count() - 1).x(), 24.0);
        QVERIFY(close(curve->at(curve->count() - 1).y(), endToEnd));
        QVERIFY(!view->oracleSeries()->isVisible());
    }

    // A workload that cannot run (a task's unknown strategy, a file that is not JSON) is one error naming it,
    // and nothing is recorded or started.
    void inputThatCannotRunIsOneErrorAndRecordsNothing() {
        auto w = window();
        QSignalSpy errors(&w->errors(), &ErrorReporter::reported);
        WorkloadView* view = w->workloadView();

        WorkloadPlan badStrategy = replayWorkload(40);
        badStrategy.tasks[1].plan.strategy = "no_such_strategy";
        QVERIFY(!view->startWorkload(badStrategy));
        QCOMPARE(errors.count(), 1);
        const QString message = errors.first().at(1).toString();
        QVERIFY2(message.contains("gemm") && message.contains("no_such_strategy"), qPrintable(message));

        errors.clear();
        const QString bad = m_dir.filePath("not-a-workload.json");
        {
            std::ofstream out(bad.toStdString());
            out << "{ this is not json";
        }
        view->addWorkloadFile(bad);
        QTest::mouseClick(view->startButton(), Qt::LeftButton);
        QCOMPARE(errors.count(), 1);
        QVERIFY2(errors.first().at(1).toString().contains("not-a-workload.json"),
                 qPrintable(errors.first().at(1).toString()));
        QVERIFY(!view->runner().isRunning());
        QVERIFY(!view->workloadId().has_value());
        QCOMPARE(view->runCount(), 0);
        RecordStore store(w->databasePath().toStdString());
        QVERIFY(store.workloads().empty());
    }

    // File > New workload from model...: the form asks for the model's open dimensions, the workload file is
    // core's (as `workload from-onnx` writes it) and the Workload view opens it; a model that cannot be read
    // is one error.
    void aWorkloadFromAModel() {
#if !TUNESCOPE_WITH_ONNX
        QSKIP("This build reads no ONNX models (libonnx-dev was not found).");
#else
        auto w = window();
        QVERIFY(w->workloadFromModel());
        QSignalSpy errors(&w->errors(), &ErrorReporter::reported);
        const QString model = TUNESCOPE_TEST_DATA "/onnx/dynamic_axes.onnx";
        const auto dims = w->workloadFromModel()->openDims(model);
        QVERIFY(dims);
        QCOMPARE(*dims, (std::set<std::string>{"batch", "sequence"}));
        ModelWorkloadDialog dialog(model, *dims);
        dialog.setDim("batch", 2);
        dialog.setDim("sequence", 8);
        dialog.setKernel("softmax", false);
        const QString output = m_dir.filePath("from-model.json");
        QVERIFY(w->workloadFromModel()->create(dialog.request(), output));
        QCOMPARE(errors.count(), 0);
        const WorkloadPlan plan = w->workloadView()->formPlan();
        QCOMPARE(plan.tasks.size(), std::size_t{1});
        QCOMPARE(plan.tasks[0].name, std::string("gemm.M16_N48_K32"));

        QVERIFY(!w->workloadFromModel()->openDims(TUNESCOPE_TEST_DATA "/onnx/truncated.onnx"));
        QCOMPARE(errors.count(), 1);
        QVERIFY2(errors.last().at(1).toString().contains("truncated.onnx"),
                 qPrintable(errors.last().at(1).toString()));
        ModelWorkloadDialog open(model, *dims);
        open.setKernel("gemm", false);
        open.setKernel("softmax", false);
        QVERIFY(!w->workloadFromModel()->create(open.request(), m_dir.filePath("none.json")));
        QCOMPARE(errors.count(), 2);
        QVERIFY(!QFile::exists(m_dir.filePath("none.json")));
#endif
    }
};

QTEST_MAIN(TestGuiWorkload)
#include "TestGuiWorkload.moc"
