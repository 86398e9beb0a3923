// The workbench driven through its widgets, offscreen: a replay session started from the task panel, checked
// against the records database; pause, resume and cancel; malformed input; past sessions opened and resumed.
#include "data/TrialTableModel.h"
#include "views/ComparisonView.h"
#include "views/ConvergenceView.h"
#include "views/CostModelView.h"
#include "views/ExplorerView.h"
#include "views/RecordsView.h"
#include "window/ErrorReporter.h"
#include "window/MainWindow.h"
#include "window/TaskPanel.h"

#include "datasets/DatasetReader.h"
#include "models/LearnedRestrictions.h"
#include "store/RecordStore.h"

#include <QChartView>
#include <QFileInfo>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

using namespace ts;
using namespace ts::gui;

namespace {

const QString kSmall = TUNESCOPE_TEST_DATA "/kt_pnpoly.json";
const QString kGemm = TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz";

struct Errors {
    explicit Errors(MainWindow& w) : spy(&w.errors(), &ErrorReporter::reported) {
        w.errors().setInteractive(false);
    }
    QSignalSpy spy;
};

} // namespace

class TestGuiSession : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_dbCount = 0;

    QString freshDatabase() { return m_dir.filePath(QString("records-%1.db").arg(++m_dbCount)); }

    // A window on a fresh database with a dataset loaded.
    std::unique_ptr<MainWindow> window(const QString& dataset) {
        auto w = std::make_unique<MainWindow>();
        w->errors().setInteractive(false);
        w->setDatabasePath(freshDatabase());
        w->resize(1400, 900);
        w->show();
        QSignalSpy loaded(w.get(), &MainWindow::datasetLoaded);
        w->openDataset(dataset);
        if (!loaded.wait(30000))
            return nullptr;
        return w;
    }

    void setTask(MainWindow& w, const std::string& strategy, std::int64_t budget, SpaceMode mode,
                 std::size_t batch = 8, std::uint64_t seed = 1) {
        SessionPlan task = w.taskPanel()->task();
        task.strategy = strategy;
        task.options.clear();
        task.budget = budget;
        task.mode = mode;
        task.batchSize = batch;
        task.seed = seed;
        task.timeLimitS = 0;
        task.patience = 0;
        task.targetMs = 0;
        w.taskPanel()->setTask(task);
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("TunescopeTest");
        QCoreApplication::setApplicationName("TestGuiSession");
        QSettings().clear();
        QVERIFY(m_dir.isValid());
    }

    void replaySessionAgreesWithDatabase() {
        auto w = window(kSmall);
        QVERIFY(w);
        Errors errors(*w);
        setTask(*w, "random_sample", 20, SpaceMode::Constrained);
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QTest::mouseClick(w->startButton(), Qt::LeftButton);
        QVERIFY(w->runner().isRunning() || ended.count() == 1);
        QVERIFY(ended.count() == 1 || ended.wait(30000));
        QCOMPARE(ended.first().first().toString(), QString("completed"));
        QCOMPARE(errors.spy.count(), 0);

        RecordStore store(w->databasePath().toStdString());
        std::int64_t id = w->runData().info().sessionId;
        QVERIFY(id > 0);
        std::vector<StoredTrial> stored = store.trials(id);
        QCOMPARE(static_cast<int>(stored.size()), 20);
        QCOMPARE(store.session(id)->status, std::string("completed"));
        double best = INFINITY;
        for (const StoredTrial& t : stored)
            if (t.status == "ok")
                best = std::min(best, t.objective);
        QVERIFY(std::isfinite(best));

        // Table rows: one per stored trial, same times in the same order.
        QTableView* table = w->explorerView()->table();
        TrialTableModel* model = w->explorerView()->model();
        QCOMPARE(model->rowCount(), 20);
        QCOMPARE(table->model()->rowCount(), 20);
        for (int row = 0; row < 20; ++row) {
            const StoredTrial& t = stored[static_cast<std::size_t>(row)];
            QCOMPARE(model->index(row, TrialTableModel::Status).data().toString(),
                     QString::fromStdString(t.status));
            if (t.status == "ok")
                QCOMPARE(model->index(row, TrialTableModel::Time).data(TrialTableModel::kSortRole).toDouble(),
                         t.objective);
        }
        // Chart points: the step line ends at the last evaluation with the database's best.
        w->showView("convergence");
        w->refreshNow(true);
        QLineSeries* series = w->convergenceView()->currentSeries(0);
        QVERIFY(series->count() >= 1);
        QCOMPARE(series->at(series->count() - 1).x(), 20.0);
        QCOMPARE(series->at(series->count() - 1).y(), best);
        double lowest = INFINITY;
        for (const QPointF& p : series->points())
            lowest = std::min(lowest, p.y());
        QCOMPARE(lowest, best);
        // The best value in the window.
        QVERIFY(w->runData().bestRow().has_value());
        QCOMPARE(w->runData().trials()[*w->runData().bestRow()].measurement.objective, best);
        QCOMPARE(w->progressBar()->value(), 20);
        QVERIFY(w->startButton()->isEnabled());
        QVERIFY(!w->stopButton()->isEnabled());
    }

    // A product-mode xgb session on the GEMM product: the cost model view lists the restrictions the strategy
    // learned from the failed configs, the same rules core learns from the session's trials.
    // As at launch, the kernel list shows a dataset that was never opened: Start opens it and starts (it said
    // "No kernel is chosen"). Pause, Resume and Stop are disabled while nothing runs, and when a session
    // starts the status line names it (it still named the session before).
    void startOpensTheShownDatasetAndNamesTheRunningSession() {
        auto w = std::make_unique<MainWindow>();
        w->errors().setInteractive(false);
        Errors errors(*w);
        w->setDatabasePath(freshDatabase());
        w->show();
        QVERIFY(!w->dataset());
        const QString shown = w->taskPanel()->kernelPath();
        QVERIFY(!shown.isEmpty() && !TaskPanel::isRealKernelId(shown));
        setTask(*w, "random_sample", 10, SpaceMode::Constrained);
        QVERIFY(w->startButton()->isEnabled());
        QVERIFY(!w->pauseButton()->isEnabled() && !w->resumeButton()->isEnabled() &&
                !w->stopButton()->isEnabled());
        QStringList statusAtStart;
        connect(w.get(), &MainWindow::sessionStarted, this, [&] { statusAtStart << w->statusText(); });
        QSignalSpy started(w.get(), &MainWindow::sessionStarted);
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QTest::mouseClick(w->startButton(), Qt::LeftButton);
        QVERIFY(ended.wait(60000));
        QCOMPARE(errors.spy.count(), 0);
        QCOMPARE(started.count(), 1);
        QVERIFY(w->dataset());
        QCOMPARE(QFileInfo(QString::fromStdString(w->dataset()->path.string())).absoluteFilePath(),
                 QFileInfo(shown).absoluteFilePath());
        QVERIFY(!w->pauseButton()->isEnabled() && !w->stopButton()->isEnabled());
        QTest::mouseClick(w->startButton(), Qt::LeftButton);
        QVERIFY(ended.wait(60000));
        QCOMPARE(started.count(), 2);
        for (int i = 0; i < 2; ++i) {
            const qint64 id = started.at(i).at(0).toLongLong();
            QVERIFY2(statusAtStart.value(i).startsWith(QString("Session %1 running").arg(id)),
                     qPrintable(statusAtStart.value(i)));
        }
    }

    void learnedRestrictionsShownInTheCostModelView() {
        auto w = window(kGemm);
        QVERIFY(w);
        Errors errors(*w);
        setTask(*w, "xgb", 120, SpaceMode::Product);
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QVERIFY(w->startSession());
        QVERIFY(ended.count() == 1 || ended.wait(60000));
        QCOMPARE(errors.spy.count(), 0);
        const QStringList shown = w->runData().restrictions();
        const std::int64_t firstSession = w->runData().info().sessionId;
        QVERIFY(!shown.isEmpty());
        LearnedRestrictions learner(w->runData().dataset()->space);
        learner.update(w->runData().trials());
        QStringList expected;
        for (const std::string& rule : learner.describe())
            expected << QString::fromStdString(rule);
        QCOMPARE(shown, expected);
        w->showView("costmodel");
        w->refreshNow(true);
        QVERIFY(w->costModelView()->restrictionsText().contains(shown.first()));

        // A new session starts without the previous session's rules.
        setTask(*w, "random_sample", 10, SpaceMode::Product);
        QVERIFY(w->startSession());
        QVERIFY(ended.count() == 2 || ended.wait(60000));
        QVERIFY(w->runData().restrictions().isEmpty());
        const std::int64_t secondSession = w->runData().info().sessionId;

        // Opened again from the records, the first session shows the same rules (its strategy, told of the
        // stored trials, says what it learned); the random sampling session shows none.
        w->openSession(firstSession);
        QCOMPARE(w->runData().restrictions(), shown);
        w->openSession(secondSession);
        QVERIFY(w->runData().restrictions().isEmpty());
        QCOMPARE(errors.spy.count(), 0);
    }

    void pauseResumeCancel() {
        auto w = window(kGemm);
        QVERIFY(w);
        Errors errors(*w);
        // Product mode over the GEMM space, one config per batch: far more work than the test waits for.
        setTask(*w, "random_sample", 80000, SpaceMode::Product, 1);
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QSignalSpy paused(&w->runner(), &SessionRunner::pausedChanged);
        QVERIFY(w->startSession());
        QTRY_VERIFY_WITH_TIMEOUT(w->runData().trials().size() >= 20, 20000);
        QTest::mouseClick(w->pauseButton(), Qt::LeftButton);
        QCOMPARE(paused.count(), 1);
        QVERIFY(w->runner().isPaused());
        QVERIFY(w->resumeButton()->isEnabled());
        QVERIFY(!w->pauseButton()->isEnabled());
        // Paused between batches: after the batch in flight, nothing more arrives.
        QSignalSpy ticks(w.get(), &MainWindow::refreshed);
        QTRY_VERIFY_WITH_TIMEOUT(ticks.count() >= 3, 5000);
        std::size_t atPause = w->runData().trials().size();
        ticks.clear();
        QTRY_VERIFY_WITH_TIMEOUT(ticks.count() >= 5, 5000);
        QCOMPARE(w->runData().trials().size(), atPause);
        QVERIFY(w->runner().isRunning());

        QTest::mouseClick(w->resumeButton(), Qt::LeftButton);
        QVERIFY(!w->runner().isPaused());
        QTRY_VERIFY_WITH_TIMEOUT(w->runData().trials().size() > atPause + 10, 20000);

        QTest::mouseClick(w->stopButton(), Qt::LeftButton);
        QVERIFY(ended.wait(20000));
        QCOMPARE(ended.first().first().toString(), QString("cancelled"));
        QCOMPARE(errors.spy.count(), 0);
        RecordStore store(w->databasePath().toStdString());
        std::int64_t id = w->runData().info().sessionId;
        QCOMPARE(store.session(id)->status, std::string("cancelled"));
        auto stored = store.trials(id);
        QVERIFY(stored.size() < 80000);
        QCOMPARE(stored.size(), w->runData().trials().size());
        QCOMPARE(w->explorerView()->model()->rowCount(), static_cast<int>(stored.size()));
    }

    void malformedFileShowsErrorAndChangesNothing() {
        auto w = window(kSmall);
        QVERIFY(w);
        Errors errors(*w);
        auto before = w->dataset();
        QString kernelBefore = w->taskPanel()->kernelPath();
        setTask(*w, "random_sample", 20, SpaceMode::Constrained);
        QVERIFY(w->startSession());
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QVERIFY(ended.wait(20000));
        int rows = w->explorerView()->model()->rowCount();

        for (const QString& bad : {QString(TUNESCOPE_TEST_DATA "/kt_malformed.json"),
                                   QString(TUNESCOPE_TEST_DATA "/corrupt.json.gz"),
                                   QString(TUNESCOPE_TEST_DATA "/not_a_dataset.json"),
                                   QString(TUNESCOPE_TEST_DATA "/no_such_file.json")}) {
            errors.spy.clear();
            QSignalSpy failed(w.get(), &MainWindow::loadFailed);
            w->openDataset(bad);
            QVERIFY2(failed.wait(10000), qPrintable(bad));
            QCOMPARE(errors.spy.count(), 1);
            QString message = errors.spy.first().at(1).toString();
            QVERIFY2(message.contains(QFileInfo(bad).fileName()), qPrintable(bad + ": " + message));
            QCOMPARE(w->dataset(), before);
            QCOMPARE(w->taskPanel()->kernelPath(), kernelBefore);
            QCOMPARE(w->explorerView()->model()->rowCount(), rows);
        }

        // A bad strategy option: reported with its name, and no session starts.
        errors.spy.clear();
        SessionPlan task = w->taskPanel()->task();
        task.strategy = "simulated_annealing";
        w->taskPanel()->setTask(task);
        std::map<std::string, std::string> options{{"T", "hot"}};
        SessionPlan withOption = w->taskPanel()->task();
        SessionRunner::Request request;
        request.dataset = w->dataset();
        request.plan = withOption;
        request.plan.dataset = w->dataset()->path.string();
        request.plan.options = options;
        request.databasePath = w->databasePath();
        QVERIFY_THROWS_EXCEPTION(std::exception, w->runner().start(request));
        QVERIFY(!w->runner().isRunning());
    }

    void pastSessionOpensAndResumes() {
        auto w = window(kGemm);
        QVERIFY(w);
        Errors errors(*w);
        setTask(*w, "random_sample", 80000, SpaceMode::Product, 1, 7);
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QVERIFY(w->startSession());
        QTRY_VERIFY_WITH_TIMEOUT(w->runData().trials().size() >= 30, 20000);
        w->runner().cancel();
        QVERIFY(ended.wait(20000));
        std::int64_t id = w->runData().info().sessionId;
        std::size_t measured = w->runData().trials().size();
        double best = w->runData().trials()[*w->runData().bestRow()].measurement.objective;

        // Open into every view from the records database.
        w->runData().reset({}, {}, nullptr);
        QCOMPARE(w->explorerView()->model()->rowCount(), 0);
        w->showView("records");
        w->recordsView()->reload();
        QVERIFY(w->recordsView()->selectSession(id));
        w->openSession(id);
        QCOMPARE(errors.spy.count(), 0);
        QCOMPARE(w->runData().trials().size(), measured);
        QCOMPARE(w->explorerView()->model()->rowCount(), static_cast<int>(measured));
        QCOMPARE(w->runData().trials()[*w->runData().bestRow()].measurement.objective, best);
        QCOMPARE(w->runData().info().optimum.has_value(), true);

        // Resume: the measured trials are preloaded, the session continues in the same record.
        setTask(*w, "random_sample", 10, SpaceMode::Constrained); // ignored: the record's settings win
        ended.clear();
        QVERIFY(w->resumeSession(id));
        QTRY_VERIFY_WITH_TIMEOUT(w->runData().trials().size() >= measured + 20, 20000);
        w->runner().cancel();
        QVERIFY(ended.wait(20000));
        QCOMPARE(errors.spy.count(), 0);
        RecordStore store(w->databasePath().toStdString());
        auto stored = store.trials(id);
        QCOMPARE(stored.size(), w->runData().trials().size());
        std::set<std::uint64_t> unique;
        for (const StoredTrial& t : stored)
            unique.insert(t.index);
        QCOMPARE(unique.size(), stored.size()); // nothing measured twice
        QCOMPARE(store.sessions().size(), std::size_t{1});
    }

    void exportConfirmsTheFileWrittenAndReportsFailure() {
        auto w = window(kGemm);
        QVERIFY(w);
        Errors errors(*w);
        setTask(*w, "random_sample", 20, SpaceMode::Product, 1, 3);
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QVERIFY(w->startSession());
        QVERIFY(ended.wait(20000));
        const std::int64_t id = w->runData().info().sessionId;
        RecordsView* records = w->recordsView();
        records->reload();
        QCOMPARE(records->notice(), QString());

        // Every format: the file is written and the window says which file, in what format.
        const QStringList formats = RecordsView::exportFormats();
        QVERIFY(formats.size() >= 2);
        for (int format = 0; format < formats.size(); ++format) {
            const QString path = m_dir.filePath(QString("export-%1").arg(format));
            QVERIFY(records->exportSession(id, path, format));
            QCOMPARE(errors.spy.count(), 0);
            QVERIFY(QFileInfo(path).size() > 0);
            const QString notice = records->notice();
            QVERIFY2(notice.contains(QString("session %1").arg(id)), qPrintable(notice));
            QVERIFY2(notice.contains(QFileInfo(path).absoluteFilePath()), qPrintable(notice));
            QVERIFY2(notice.contains(formats[format].left(formats[format].indexOf(" ("))),
                     qPrintable(notice));
            QCOMPARE(w->statusText(), notice);
        }

        // A path under a regular file cannot be written (even by root): one sentence naming the file, no
        // confirmation, nothing left behind.
        const QString blocker = m_dir.filePath("not-a-directory");
        {
            QFile f(blocker);
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        const QString before = records->notice();
        const QString bad = blocker + "/session.json";
        QVERIFY(!records->exportSession(id, bad, 0));
        QCOMPARE(errors.spy.count(), 1);
        const QString message = errors.spy.front().at(1).toString();
        QVERIFY2(message.contains("session.json"), qPrintable(message));
        QCOMPARE(records->notice(), before);
        QVERIFY(!QFileInfo::exists(bad));
    }

    void comparisonProducesTable() {
        MainWindow w;
        Errors errors(w);
        w.resize(1400, 900);
        w.show();
        w.showView("comparison");
        ComparisonView* view = w.comparisonView();
        // Constrained mode: in the product (4,092 configs, 24 measured) 20 evaluations mostly find nothing,
        // and a table of zeros would agree with anything.
        view->configure({kSmall}, {"random_sample", "brute_force"}, 3, "10,20", SpaceMode::Constrained);
        QSignalSpy finished(view, &ComparisonView::finished);
        QVERIFY(view->start());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().first().toBool(), true);
        QCOMPARE(errors.spy.count(), 0);
        QTableWidget* table = view->scoreTable();
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->columnCount(), 4); // strategy, @10, @20, methodology score
        QStringList strategies;
        for (int row = 0; row < 2; ++row) {
            strategies << table->item(row, 0)->text();
            QVERIFY(table->item(row, 3) != nullptr);
        }
        QCOMPARE(strategies, QStringList({"brute_force", "random_sample"}));
        // Every cell of the table agrees with core's result; the chart has a mean line and a band per
        // strategy.
        const CompareResult& result = view->outcome().result;
        QCOMPARE(result.runs.size(), std::size_t{6});
        for (int row = 0; row < 2; ++row) {
            const std::vector<double>& fractions = result.meanFraction.at(strategies[row].toStdString());
            QCOMPARE(fractions.size(), std::size_t{2});
            for (int c = 1; c <= 2; ++c)
                QCOMPARE(table->item(row, c)->text(), QString::number(fractions[std::size_t(c - 1)], 'f', 3));
        }
        // Brute force visits the valid configs in index order: its fractions follow from the file alone.
        const Dataset small = readDataset(kSmall.toStdString());
        for (int c = 1; c <= 2; ++c) {
            double best = INFINITY;
            for (std::size_t i = 0; i < std::size_t(10 * c); ++i) {
                const Measurement& m = small.entries.at(small.space.validIndices()[i]);
                if (m.status == MeasureStatus::Ok)
                    best = std::min(best, m.objective);
            }
            QVERIFY(std::isfinite(best));
            QCOMPARE(table->item(0, c)->text(), QString::number(*small.optimum() / best, 'f', 3));
        }
        QCOMPARE(view->chart()->chart()->series().size(), 4);
        QCOMPARE(view->outcome().curves.curves.at("random_sample").mean.size(), std::size_t{20});

        // Bad input is reported and nothing runs.
        view->configure({kSmall}, {"random_sample"}, 2, "10,x");
        QVERIFY(!view->start());
        QCOMPARE(errors.spy.count(), 1);
        QVERIFY(errors.spy.first().at(1).toString().contains("\"x\""));
    }

    void warmStartFromAnEarlierSession() {
        auto w = window(kSmall);
        QVERIFY(w);
        Errors errors(*w);
        auto run = [&](const std::string& strategy, std::int64_t budget, bool transfer) {
            setTask(*w, strategy, budget, SpaceMode::Constrained, 1);
            SessionPlan task = w->taskPanel()->task();
            task.transfer = transfer;
            w->taskPanel()->setTask(task);
            QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
            QTest::mouseClick(w->startButton(), Qt::LeftButton);
            if (ended.count() == 0 && w->runner().isRunning())
                ended.wait(60000);
            return w->runData().info().sessionId;
        };
        QSignalSpy warmStart(&w->runner(), &SessionRunner::warmStart);
        const std::int64_t earlier = run("random_sample", 12, false);
        QCOMPARE(warmStart.count(), 0);
        QCOMPARE(w->taskPanel()->warmStartText(), QString(TaskPanel::kStartedCold));
        // The bundled pnpoly dataset measured what this one did (same GPU and size): no source of its own.
        const std::int64_t warm = run("xgb", 4, true);
        QCOMPARE(warmStart.count(), 1);
        const QString note = warmStart.last().first().toString();
        QCOMPARE(w->taskPanel()->warmStartText(), note); // the Task panel shows the sources of this run
        QVERIFY2(note.startsWith("Warm start from ") &&
                     note.contains(QString(" measured configs of 1 source(s): session %1 (").arg(earlier)),
                 qPrintable(note));
        QCOMPARE(errors.spy.count(), 0);
        QVERIFY(warm > earlier);
        RecordStore store(w->databasePath().toStdString());
        QVERIFY(nlohmann::json::parse(store.session(warm)->settings).value("transfer", false));
        // The prior learned the earlier session, so the warm session's first proposal is its fastest config
        // (when that one is not also the fastest of all, something at least as fast is as good).
        double earlierBest = INFINITY;
        for (const StoredTrial& t : store.trials(earlier))
            if (t.status == "ok")
                earlierBest = std::min(earlierBest, t.objective);
        std::vector<StoredTrial> warmTrials = store.trials(warm);
        QCOMPARE(warmTrials.size(), std::size_t{4});
        QCOMPARE(warmTrials.front().status, std::string("ok"));
        QVERIFY2(warmTrials.front().objective <= earlierBest * 1.05,
                 qPrintable(QString("%1 vs %2").arg(warmTrials.front().objective).arg(earlierBest)));

        // Warm start with a strategy that has no use for a prior: one error, nothing starts.
        setTask(*w, "tpe", 4, SpaceMode::Constrained);
        SessionPlan task = w->taskPanel()->task();
        task.transfer = true;
        w->taskPanel()->setTask(task);
        QTest::mouseClick(w->startButton(), Qt::LeftButton);
        QCOMPARE(errors.spy.count(), 1);
        QVERIFY(errors.spy.first().at(1).toString().contains("tpe does not use a prior"));
        QCOMPARE(store.sessions().size(), std::size_t{2});
    }

    // A dataset whose kernel the bundled datasets hold measured on another GPU starts warm from it in the
    // window as in the CLI (the one plan field), and the Task panel names the source; "start cold" does not.
    void taskPanelShowsTheWarmStartSources() {
        auto w = window(kGemm);
        QVERIFY(w);
        Errors errors(*w);
        auto run = [&](bool cold) -> std::int64_t {
            setTask(*w, "xgb", 4, SpaceMode::Product, 4);
            SessionPlan task = w->taskPanel()->task();
            task.cold = cold;
            w->taskPanel()->setTask(task);
            if (w->taskPanel()->task().cold != cold) // the checkbox holds the plan's field
                return -1;
            QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
            QTest::mouseClick(w->startButton(), Qt::LeftButton);
            if (ended.count() == 0 && w->runner().isRunning())
                ended.wait(120000);
            return w->runData().info().sessionId;
        };
        const std::int64_t warm = run(false);
        QVERIFY(warm > 0);
        const QString shown = w->taskPanel()->warmStartText();
        QVERIFY2(shown.contains("Warm start") &&
                     shown.contains("gemm_clblast_RTX_2080_Ti.json.gz (NVIDIA GeForce RTX 2080 Ti): "),
                 qPrintable(shown));
        const std::int64_t cold = run(true);
        QVERIFY(cold > warm);
        QCOMPARE(w->taskPanel()->warmStartText(), QString(TaskPanel::kStartedCold));
        QCOMPARE(errors.spy.count(), 0);
        RecordStore store(w->databasePath().toStdString());
        QVERIFY(nlohmann::json::parse(store.session(warm)->settings).contains("warm_start"));
        QVERIFY(nlohmann::json::parse(store.session(cold)->settings).value("cold", false));
    }
};

QTEST_MAIN(TestGuiSession)
#include "TestGuiSession.moc"
