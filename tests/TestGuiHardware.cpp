// The Hardware view's analyses without a GPU, in the real window over sessions recorded by the real CLI:
// the static analysis of a replay run's trial for GPUs of the database equals `tunescope-cli analyze` (it
// runs off the UI thread and drops stale results), configs that cannot be analysed say why, cpu sessions
// get a roofline whose lines are CpuInfo's peaks and whose points are flops / time, and the features table
// shows every cell's text in a 300 px dock.
#include "window/ErrorReporter.h"
#include "views/HardwareView.h"
#include "window/MainWindow.h"
#include "data/RunData.h"

#include "charts/ChartSupport.h"

#include "hardware/CpuInfo.h"
#include "hardware/GpuDatabase.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpace.h"
#include "kernels/ProblemSizeJson.h"

#include <QChartView>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineSeries>
#include <QMainWindow>
#include <QScatterSeries>
#include <QScrollArea>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "CliRun.h"

#include <cmath>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace ts;
using namespace ts::gui;

namespace {

const KernelSpec& gemm() {
    static const KernelCatalog catalog({TUNESCOPE_KERNELS});
    return catalog.find("gemm");
}

// CPU time the calling thread has used, in ms.
double threadCpuMs() {
    timespec t{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        qFatal("clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// How the event loop ran while `until` was false (at most `timeoutMs`), with a 5 ms timer: the most CPU
// time the UI thread spent between two ticks (its own work, which is what an analysis run on the UI thread
// adds; a wall-clock gap would also count other processes holding this shared machine's cores), the
// longest wall-clock gap, and how many ticks ran (none when the UI thread waited for the result).
struct Stall {
    double wallMs = 0.0;
    double cpuMs = 0.0;
    int ticks = 0;
    QString text() const {
        return QString("%1 ms of UI thread CPU at most between two ticks, %2 ms wall, %3 ticks")
            .arg(cpuMs)
            .arg(wallMs)
            .arg(ticks);
    }
};

Stall longestStall(const std::function<bool()>& until, int timeoutMs) {
    QElapsedTimer clock;
    clock.start();
    QElapsedTimer gap;
    gap.start();
    double cpuAtTick = threadCpuMs();
    Stall longest;
    QTimer ticks;
    QObject::connect(&ticks, &QTimer::timeout, [&] {
        const double cpu = threadCpuMs();
        longest.wallMs = std::max(longest.wallMs, static_cast<double>(gap.nsecsElapsed()) / 1e6);
        longest.cpuMs = std::max(longest.cpuMs, cpu - cpuAtTick);
        gap.restart();
        cpuAtTick = cpu;
        ++longest.ticks;
    });
    ticks.start(5);
    while (!until() && clock.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
    return longest;
}

// The analysis runs off the UI thread: the UI thread never works 50 ms at once, nor waits for it (the
// event loop keeps ticking while a compile of hundreds of milliseconds runs).
bool smooth(const Stall& s) {
    return s.cpuMs < 50 && s.ticks >= 5;
}

// Every cell of the table whose text its cell or the dock does not show in full, one line each.
QStringList clippedCells(QTableWidget* table) {
    QStringList problems;
    const int margin = table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1;
    for (int r = 0; r < table->rowCount(); ++r)
        for (int c = 0; c < table->columnCount(); ++c) {
            QTableWidgetItem* item = table->item(r, c);
            if (!item)
                continue;
            table->scrollToItem(item);
            QCoreApplication::processEvents();
            const QRect cell = table->visualItemRect(item);
            const QRect text = cell.adjusted(margin, 0, -margin, 0);
            const QRect needed = table->fontMetrics().boundingRect(QRect(0, 0, text.width(), 100000),
                                                                   Qt::TextWordWrap, item->text());
            const QRect visible = table->viewport()->visibleRegion().boundingRect().intersected(cell);
            if (needed.width() > text.width() || needed.height() > cell.height() || visible != cell)
                problems << QString("row %1 column %2 \"%3\": needs %4x%5 px, the cell is %6x%7 px, %8x%9 "
                                    "visible")
                                .arg(r)
                                .arg(c)
                                .arg(item->text().left(40))
                                .arg(needed.width())
                                .arg(needed.height())
                                .arg(text.width())
                                .arg(cell.height())
                                .arg(visible.width())
                                .arg(visible.height());
        }
    return problems;
}

} // namespace

class TestGuiHardware : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_database;
    std::unique_ptr<MainWindow> m_window;
    HardwareView* m_view = nullptr;
    std::int64_t m_sessions = 0; // sessions recorded in m_database so far (ids count from 1)

    // Opens a stored session in the window with the Hardware view shown, and refreshes it.
    void open(std::int64_t session) {
        m_window->openSession(session);
        m_window->showView("hardware");
        m_window->refreshNow(true);
        QCoreApplication::processEvents();
    }

    // Selects a row and waits until the view shows its analysis for the chosen GPU (at once when the result
    // is known).
    void selectAndWait(int row) {
        m_window->runData().select(row);
        m_window->refreshNow(true);
        QVERIFY(QTest::qWaitFor([&] { return !m_view->isAnalysing(); }, 240000));
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("TunescopeTest");
        QCoreApplication::setApplicationName("TestGuiHardware");
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        // Its own cubin cache: the view compiles for real, apart from the CLI's own cache.
        qputenv("TUNESCOPE_CACHE_DIR", m_dir.filePath("gui-cache").toUtf8());
        m_database = m_dir.filePath("records.db");
        m_window = std::make_unique<MainWindow>();
        m_window->errors().setInteractive(false);
        m_window->setDatabasePath(m_database);
        m_window->resize(1280, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_view = m_window->findChild<HardwareView*>();
        QVERIFY(m_view);
    }

    // A replay run over gemm's cuda space (as a CUDA tuning run would export it), measured by the replay
    // backend: each trial analysed in the view for two GPUs equals the CLI's analysis of that config.
    void staticAnalysisEqualsCli() {
#ifndef TUNESCOPE_WITH_CUDA
        QSKIP("This build has no CUDA toolkit, so no NVRTC to analyse with (the view says so instead).");
#endif
        QProcessEnvironment cliEnvironment = QProcessEnvironment::systemEnvironment();
        cliEnvironment.insert("TUNESCOPE_CACHE_DIR", m_dir.filePath("cli-cache"));
        std::map<QString, nlohmann::json> cli; // gpu id -> analyze --json
        for (const QString gpu : {"RTX_3090", "H100_SXM"}) {
            const test::CliResult r = test::runCli(
                {"analyze", "--kernel", "gemm", "--target", gpu, "--limit", "2", "--seed", "3", "--json"},
                cliEnvironment, 300000);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            cli[gpu] = nlohmann::json::parse(r.out.toStdString());
            QCOMPARE(cli[gpu]["configs"].size(), std::size_t(2));
        }
        // The dataset: the analysed configs, on the RTX 3090, in Kernel Tuner's cache format.
        const KernelSpace space(gemm(), "cuda", gemm().defaultSize());
        nlohmann::ordered_json dataset{{"device_name", "NVIDIA GeForce RTX 3090"},
                                       {"kernel_name", "gemm"},
                                       {"problem_size", {1024, 1024, 1024}},
                                       {"objective", "time"}};
        nlohmann::json keys = nlohmann::json::array(), params = nlohmann::json::object();
        for (const Parameter& p : space.space().parameters()) {
            keys.push_back(p.name);
            for (const Value& v : p.values)
                params[p.name].push_back(std::get<std::int64_t>(v));
        }
        dataset["tune_params_keys"] = keys;
        dataset["tune_params"] = params;
        double time = 1.0;
        for (const nlohmann::json& c : cli["RTX_3090"]["configs"]) {
            const std::string key = c["config"];
            const auto index = space.space().indexOfKey(key);
            QVERIFY(index);
            const Config config = space.space().config(*index);
            nlohmann::json entry{{"time", time}, {"times", {time, time}}};
            time += 0.5;
            for (std::size_t p = 0; p < config.size(); ++p)
                entry[space.space().parameters()[p].name] = std::get<std::int64_t>(config[p]);
            dataset["cache"][key] = entry;
        }
        const std::string path = m_dir.filePath("gemm_cuda_RTX_3090.json").toStdString();
        std::ofstream(path) << dataset.dump();
        const test::CliResult tune =
            test::runCli({"tune", "--dataset", QString::fromStdString(path), "--strategy", "brute_force",
                          "--budget", "2", "--db", m_database});
        QVERIFY2(tune.exitCode == 0, qPrintable(tune.err));

        open(++m_sessions);
        QVERIFY(!m_view->showsCpu());
        QCOMPARE(m_window->runData().trials().size(), std::size_t(2));
        // The session's GPU is in the database: the chooser starts on it.
        QCOMPARE(m_view->analysisGpu(), QString("RTX_3090"));
        for (const QString gpu : {"RTX_3090", "H100_SXM"}) {
            m_view->setAnalysisGpu(gpu);
            QCOMPARE(m_view->analysisGpu(), gpu);
            for (int row = 0; row < 2; ++row) {
                selectAndWait(row);
                const auto& shown = m_view->shownAnalysis();
                QVERIFY2(shown && shown->profile, qPrintable(m_view->resources()->text()));
                QCOMPARE(QString::fromStdString(shown->gpu.id), gpu);
                const std::string key = space.space().key(shown->profile->index);
                QCOMPARE(key,
                         space.space().key(*space.space().indexOf(m_window->runData().trials()[row].config)));
                const nlohmann::json* expected = nullptr;
                for (const nlohmann::json& c : cli[gpu]["configs"])
                    if (c["config"] == key)
                        expected = &c;
                QVERIFY2(expected, key.c_str());
                const StaticProfile& p = *shown->profile;
                QCOMPARE(p.resources.registersPerThread, (*expected)["registers"].get<int>());
                QCOMPARE(p.resources.staticSharedBytes,
                         (*expected)["static_shared_bytes"].get<std::int64_t>());
                QCOMPARE(p.occupancy.activeBlocksPerSm, (*expected)["blocks_per_sm"].get<int>());
                QCOMPARE(p.occupancy.occupancy, (*expected)["occupancy"].get<double>());
                QCOMPARE(QString::fromStdString(p.occupancy.limitText()),
                         QString::fromStdString((*expected)["limited_by"].get<std::string>()));
                // What the view shows: the text and the marked point of the occupancy curve.
                const QString text = m_view->resources()->text();
                QVERIFY2(text.contains(
                             QString("%1 registers per thread").arg((*expected)["registers"].get<int>())),
                         qPrintable(text));
                QVERIFY2(text.contains(QString("Occupancy %1%")
                                           .arg(100 * (*expected)["occupancy"].get<double>(), 0, 'f', 1)),
                         qPrintable(text));
                QVERIFY2(
                    text.contains(QString::fromStdString(GpuDatabase::builtin().get(gpu.toStdString()).name)),
                    qPrintable(text));
                QCOMPARE(m_view->curveMark(0)->count(), 1);
                QCOMPARE(m_view->curveMark(0)->at(0).y(), 100 * (*expected)["occupancy"].get<double>());
                QCOMPARE(m_view->curveMark(0)->at(0).x(), (*expected)["threads_per_block"].get<double>());
                QVERIFY(m_view->curveChart(0)->isVisible());
            }
        }
    }

    // The same run in a Hardware view of its own: the compile runs off the UI thread (the event loop never
    // stalls 50 ms, the selection's own refresh included), and a result that arrives after the selection
    // moved on is not shown.
    void analysisRunsOffTheUiThread() {
#ifndef TUNESCOPE_WITH_CUDA
        QSKIP("This build has no CUDA toolkit, so no NVRTC to analyse with (the view says so instead).");
#endif
        const RunData& run = m_window->runData();
        QVERIFY2(run.info().kernel == "gemm" && run.trials().size() == 2,
                 "needs staticAnalysisEqualsCli's run");
        RunData data;
        data.reset(run.info(), run.parameters(), run.dataset());
        data.append(run.trials());
        HardwareView view(data);
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setDeviceName(run.info().device);
        view.setAnalysisGpu("L4"); // not analysed yet in this process
        bool selected = false;
        QTimer::singleShot(0, &view, [&] {
            data.select(0);
            QVERIFY(view.isAnalysing());
            QVERIFY2(view.resources()->text().startsWith("Analysing trial 1 for NVIDIA L4"),
                     qPrintable(view.resources()->text()));
            data.select(1); // before trial 1's result is in
            selected = true;
        });
        const Stall stall = longestStall([&] { return selected && !view.isAnalysing(); }, 240000);
        QVERIFY2(smooth(stall), qPrintable("the event loop stalled while analysing: " + stall.text()));
        QVERIFY2(view.shownAnalysis() && view.shownAnalysis()->profile, qPrintable(view.resources()->text()));
        const KernelSpace space(gemm(), "cuda", gemm().defaultSize());
        QCOMPARE(view.shownAnalysis()->profile->index, *space.space().indexOf(run.trials()[1].config));
        QVERIFY2(view.resources()->text().startsWith("Trial 2 on NVIDIA L4"),
                 qPrintable(view.resources()->text()));
    }

    // A cpu session of softmax: its cpu config has none of the cuda variant's tile parameters, and the view
    // says so in one sentence; the roofline's lines are CpuInfo's peaks and its points flops / time.
    void cpuSessionRoofline() {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("TUNESCOPE_WORKER", TUNESCOPE_WORKER);
        const test::CliResult cpu = test::runCli(
            {"tune", "--kernel", "softmax", "--size", "rows=64,cols=64", "--budget", "3", "--db", m_database},
            environment);
        QVERIFY2(cpu.exitCode == 0, qPrintable(cpu.err));
        open(++m_sessions);
        QVERIFY(m_view->showsCpu());
        if (!m_view->cpuPeaks()) {
            QSignalSpy ready(m_view, &HardwareView::cpuPeaksReady);
            QVERIFY(ready.wait(30000));
        }
        m_window->runData().select(1);
        m_window->refreshNow(true);
        QCoreApplication::processEvents();
        QVERIFY(m_view->rooflineChart()->isVisible());
        const CpuInfo peaks = CpuInfo::queryWithBandwidth(); // measured once per process: the view's values
        QVERIFY(m_view->roofline());
        const Roofline& r = *m_view->roofline();
        QAbstractAxis* x = m_view->rooflineAxis(Qt::Horizontal);
        QAbstractAxis* y = m_view->rooflineAxis(Qt::Vertical);
        const auto data = [&](QPointF p) {
            return QPointF(charts::dataValue(x, p.x()), charts::dataValue(y, p.y()));
        };
        if (peaks.peakGflops()) {
            QCOMPARE(*r.peakGflops, *peaks.peakGflops());
            QCOMPARE(m_view->rooflineCompute()->count(), 2);
            for (int i = 0; i < 2; ++i)
                QVERIFY(qFuzzyCompare(data(m_view->rooflineCompute()->at(i)).y(), *peaks.peakGflops()));
        } else {
            QCOMPARE(m_view->rooflineCompute()->count(), 0);
            QVERIFY2(m_view->rooflineNote()->text().contains("peak GFLOP/s is unknown"),
                     qPrintable(m_view->rooflineNote()->text()));
        }
        QVERIFY2(peaks.memoryBandwidthGBs, peaks.memoryBandwidthSource.c_str());
        QCOMPARE(*r.bandwidthGBs, *peaks.memoryBandwidthGBs);
        QCOMPARE(m_view->rooflineMemory()->count(), 2);
        for (int i = 0; i < 2; ++i) {
            const QPointF p = data(m_view->rooflineMemory()->at(i));
            QVERIFY(qFuzzyCompare(p.y() / p.x(), *peaks.memoryBandwidthGBs));
        }
        QVERIFY2(m_view->rooflineNote()->text().contains("measured: STREAM-like triad"),
                 qPrintable(m_view->rooflineNote()->text()));
        // One point per Ok trial at flops / bytes and flops / time, at the session's size.
        const KernelCatalog catalog({TUNESCOPE_KERNELS});
        const KernelSpec& softmax = catalog.find("softmax");
        const ProblemSize size = *parseProblemJson(softmax, m_window->runData().info().problem.toStdString());
        QCOMPARE(size, parseProblemSize(softmax, "rows=64,cols=64"));
        const double flops = *kernelFlops(softmax, size);
        const double bytes = *kernelBytes(softmax, size);
        std::vector<QPointF> expected;
        for (const Trial& t : m_window->runData().trials())
            if (t.measurement.status == MeasureStatus::Ok)
                expected.push_back({flops / bytes, flops / (t.measurement.objective * 1e-3) / 1e9});
        QVERIFY(!expected.empty());
        QCOMPARE(m_view->rooflineTrials()->count(), static_cast<int>(expected.size()));
        for (int i = 0; i < m_view->rooflineTrials()->count(); ++i) {
            const QPointF p = data(m_view->rooflineTrials()->at(i));
            QVERIFY(qFuzzyCompare(p.x(), expected[static_cast<std::size_t>(i)].x()));
            QVERIFY(qFuzzyCompare(p.y(), expected[static_cast<std::size_t>(i)].y()));
        }
        const Trial& selected = m_window->runData().trials()[1];
        if (selected.measurement.status == MeasureStatus::Ok) {
            QCOMPARE(m_view->rooflineSelected()->count(), 1);
            QVERIFY(qFuzzyCompare(data(m_view->rooflineSelected()->at(0)).y(),
                                  flops / (selected.measurement.objective * 1e-3) / 1e9));
        }
        // The trial's cpu config cannot be analysed for a GPU: one sentence naming what is missing; no
        // empty occupancy charts.
        QVERIFY(QTest::qWaitFor([&] { return !m_view->isAnalysing(); }, 60000));
        const QString text = m_view->resources()->text();
#ifdef TUNESCOPE_WITH_CUDA
        QVERIFY2(
            m_view->resources()->text().startsWith(
                QString("Trial 2 cannot be analysed for %1: The config has no BLOCK, WARP_PER_ROW, ALGO of "
                        "kernel softmax's cuda variant (its parameters are ALGORITHM, VEC, UNROLL,")
                    .arg(QString::fromStdString(GpuDatabase::builtin().get("H200").name))),
            qPrintable(m_view->resources()->text()));
#else
        QVERIFY2(text.contains("has no NVRTC"), qPrintable(text));
#endif
        QCOMPARE(m_view->analysisGpu(), QString("H200")); // a cpu session: the default GPU
        QVERIFY(!m_view->curveChart(0)->isVisible());
    }

    // A 300 px wide dock: every cell of the features table shows its whole text (wrapped), for a GPU and
    // for this CPU.
    void featuresFitANarrowDock() {
        QMainWindow window;
        RunData data;
        auto* view = new HardwareView(data);
        auto* area = new QScrollArea;
        area->setWidget(view);
        area->setWidgetResizable(true);
        auto* dock = new QDockWidget("Hardware", &window);
        dock->setWidget(area);
        window.addDockWidget(Qt::LeftDockWidgetArea, dock);
        window.setCentralWidget(new QLabel("centre"));
        window.resize(1200, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.resizeDocks({dock}, {300}, Qt::Horizontal);
        QCoreApplication::processEvents();
        QCOMPARE(dock->width(), 300);
        view->setDeviceName("NVIDIA H100 80GB HBM3");
        QCoreApplication::processEvents();
        QVERIFY(view->features()->rowCount() > 10);
        QStringList problems = clippedCells(view->features());

        view->showCpu();
        QCoreApplication::processEvents();
        problems << clippedCells(view->features());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    }
};

QTEST_MAIN(TestGuiHardware)
#include "TestGuiHardware.moc"
