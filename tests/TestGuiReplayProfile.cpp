// Acceptance of static profiles in the GUI: a replay dataset whose companion profile was made by
// `tunescope-cli analyze --dataset` (real NVRTC), and the bundled demo whose profile ships, are opened and
// replayed in the window; every replayed trial selected shows the profile's registers and occupancy in the
// Hardware view and its three occupancy curves have points.
#include "CliRun.h"

#include "window/ErrorReporter.h"
#include "views/HardwareView.h"
#include "window/MainWindow.h"
#include "data/RunData.h"
#include "window/TaskPanel.h"

#include "hardware/OccupancyCalculator.h"
#include "datasets/DatasetProfile.h"
#include "datasets/DatasetReader.h"

#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXYSeries>
#include <QtTest>

using namespace ts;
using namespace ts::gui;
using namespace ts::test;

class TestGuiReplayProfile : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Opens `dataset` in the window and replays `budget` trials of `strategy` (constrained mode, seed 5) to
    // the end.
    void replay(MainWindow& window, const QString& dataset, const QString& database,
                const std::string& strategy, int budget) {
        window.errors().setInteractive(false);
        window.setDatabasePath(database);
        window.resize(1500, 950);
        window.show();
        QSignalSpy loaded(&window, &MainWindow::datasetLoaded);
        window.openDataset(dataset);
        QVERIFY(loaded.wait(30000));
        SessionPlan task = window.taskPanel()->task();
        task.strategy = strategy;
        task.options.clear();
        task.budget = budget;
        task.seed = 5;
        task.mode = SpaceMode::Constrained;
        window.taskPanel()->setTask(task);
        QSignalSpy ended(&window, &MainWindow::sessionEnded);
        QVERIFY(window.startSession());
        QVERIFY(ended.wait(60000));
        QCOMPARE(ended.first().first().toString(), QString("completed"));
    }

    // Replays `budget` trials of `dataset` in the window and checks, for each trial selected, that the
    // Hardware view shows the profile's registers and occupancy and draws its three occupancy curves.
    void replayAndCheck(const QString& dataset, const Dataset& data, const DatasetProfile& profile,
                        const std::string& strategy, int budget) {
        MainWindow window;
        replay(window, dataset, m_dir.filePath(QFileInfo(dataset).fileName() + ".db"), strategy, budget);
        if (QTest::currentTestFailed())
            return;
        const std::vector<Trial>& trials = window.runData().trials();
        QCOMPARE(trials.size(), static_cast<std::size_t>(budget));

        QVERIFY(window.showView("hardware"));
        HardwareView* view = window.hardwareView();
        QVERIFY(view->gpu().has_value());
        for (int row = 0; row < static_cast<int>(trials.size()); ++row) {
            window.runData().select(row);
            view->refreshIfNeeded(true);
            const Trial& trial = trials[static_cast<std::size_t>(row)];
            const std::string key = data.space.key(*data.space.indexOf(trial.config));
            const ConfigProfile& expected = profile.configs.at(key);
            const QString text = view->resources()->text();
            // "Trial 3: ..." or "Trial 3 (measured on GPU): ..."
            QVERIFY2(text.contains(QRegularExpression(QString("Trial %1\\b.*: %2 registers per thread")
                                                          .arg(trial.number + 1)
                                                          .arg(expected.registers))),
                     qPrintable(text));
            QVERIFY2(text.contains(QString("Occupancy %1%").arg(expected.occupancy * 100, 0, 'f', 1)),
                     qPrintable(text));
            for (int c = 0; c < 3; ++c) {
                const auto series = view->curveChart(c)->chart()->series();
                QVERIFY(series.size() >= 2);
                QVERIFY2(static_cast<QXYSeries*>(series[0])->count() > 0,
                         qPrintable(QString("curve %1").arg(c)));
                QCOMPARE(static_cast<QXYSeries*>(series[1])->count(), 1);
            }
        }
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("TunescopeTest");
        QCoreApplication::setApplicationName("TestGuiReplayProfile");
        QSettings().clear();
        QVERIFY(m_dir.isValid());
    }

    // A profile made here by the CLI (real NVRTC) for a cut of the CLBlast GEMM dataset.
    void hardwareViewDrawsEveryReplayedTrialFromTheProfile() {
#ifndef TUNESCOPE_WITH_CUDA
        QSKIP("This build has no CUDA backend (TUNESCOPE_WITH_CUDA): there is no NVRTC to make the profile "
              "with.");
#endif
        if (!OccupancyCalculator::available())
            QSKIP("Built without cuda_occupancy.h: no occupancy curves.");
        const QString dataset = m_dir.filePath("kt_gemm_clblast.json");
        QVERIFY(QFile::copy(TUNESCOPE_TEST_DATA "/kt_gemm_clblast.json", dataset));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("TUNESCOPE_CACHE_DIR", m_dir.filePath("cache"));
        CliResult r =
            runCli({"analyze", "--dataset", dataset, "--kernel-spec",
                    TUNESCOPE_RESOURCES "/dataset-kernels/gemm_clblast/kernel.json", "--threads", "2"},
                   env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const Dataset data = readDataset(dataset.toStdString());
        const DatasetProfile profile = DatasetProfile::read(DatasetProfile::companionPath(data.path), data);

        replayAndCheck(dataset, data, profile, "brute_force", 6);
        QVERIFY(!QTest::currentTestFailed());
    }

    // A replay dataset without a profile whose kernel is a dataset kernel (CLBlast's Xgemm): the Hardware
    // view compiles the selected trial's config itself, and shows what the CLI's profile of the dataset says.
    void replayWithoutProfileIsAnalysedFromTheDatasetKernel() {
#ifndef TUNESCOPE_WITH_CUDA
        QSKIP("This build has no CUDA backend (TUNESCOPE_WITH_CUDA): there is no NVRTC to analyse with.");
#endif
        if (!OccupancyCalculator::available())
            QSKIP("Built without cuda_occupancy.h: no occupancy curves.");
        QVERIFY(QDir().mkpath(m_dir.filePath("bare")));
        const QString dataset = m_dir.filePath("bare/kt_gemm_clblast.json");
        QVERIFY(QFile::copy(TUNESCOPE_TEST_DATA "/kt_gemm_clblast.json", dataset));
        const QString expectedFile = m_dir.filePath("expected.profile");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("TUNESCOPE_CACHE_DIR", m_dir.filePath("cache-expected"));
        const CliResult r =
            runCli({"analyze", "--dataset", dataset, "--kernel-spec",
                    TUNESCOPE_RESOURCES "/dataset-kernels/gemm_clblast/kernel.json", "--out", expectedFile},
                   env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const Dataset data = readDataset(dataset.toStdString());
        const DatasetProfile expected = DatasetProfile::read(expectedFile.toStdString(), data);
        QVERIFY(!DatasetProfile::companionOf(data)); // the window has no profile to read

        MainWindow window;
        replay(window, dataset, m_dir.filePath("bare.db"), "brute_force", 3);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(window.showView("hardware"));
        HardwareView* view = window.hardwareView();
        const std::vector<Trial>& trials = window.runData().trials();
        QVERIFY(!trials.empty());
        for (int row = 0; row < static_cast<int>(trials.size()); ++row) {
            const Trial& trial = trials[static_cast<std::size_t>(row)];
            QVERIFY(!trial.measurement.metrics.count("registers")); // replayed: times only
            window.runData().select(row);
            const ConfigProfile& want =
                expected.configs.at(data.space.key(*data.space.indexOf(trial.config)));
            const QRegularExpression registers(
                QString("Trial %1\\b.*: %2 registers per thread").arg(trial.number + 1).arg(want.registers));
            QTRY_VERIFY2_WITH_TIMEOUT(
                view->resources()->text().contains(registers),
                qPrintable(view->resources()->text() + " (wanted: " + registers.pattern() + ")"), 60000);
            QVERIFY2(view->resources()->text().contains(
                         QString("Occupancy %1%").arg(want.occupancy * 100, 0, 'f', 1)),
                     qPrintable(view->resources()->text()));
            QCOMPARE(static_cast<QXYSeries*>(view->curveChart(0)->chart()->series()[1])->count(), 1);
        }
    }

    // Bundled datasets whose profiles ship: the window's demo (CLBlast's GEMM on the RTX 3090, the configs of
    // its file) and a dedispersion space (the whole product).
    void shippedDemoProfileIsDrawn_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("demo: gemm_clblast RTX 3090") << "gemm_clblast_RTX_3090.json.gz";
        QTest::newRow("dedispersion_milo A100") << "dedispersion_milo_A100.json.gz";
    }
    void shippedDemoProfileIsDrawn() {
        QFETCH(QString, file);
        if (!OccupancyCalculator::available())
            QSKIP("Built without cuda_occupancy.h: no occupancy curves.");
        const QString dataset = TUNESCOPE_RESOURCES "/datasets/" + file;
        const Dataset data = readDataset(dataset.toStdString());
        const std::shared_ptr<const DatasetProfile> profile = DatasetProfile::companionOf(data);
        QVERIFY(profile);
        replayAndCheck(dataset, data, *profile, "random_sample", 12);
        QVERIFY(!QTest::currentTestFailed());
    }
};

QTEST_MAIN(TestGuiReplayProfile)
#include "TestGuiReplayProfile.moc"
