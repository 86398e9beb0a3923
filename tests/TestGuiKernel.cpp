// The workbench tuning a real kernel on the CPU backend, offscreen: softmax at a tiny size chosen from the
// catalog in the task panel, measured by tunescope-worker, checked against the records database; a bad size
// refused with one error; an interrupted kernel session resumed from the records database.
#include "window/ErrorReporter.h"
#include "views/ExplorerView.h"
#include "views/HardwareView.h"
#include "window/MainWindow.h"
#include "views/RecordsView.h"
#include "SqlExec.h"
#include "window/TaskPanel.h"
#include "data/TrialTableModel.h"

#include "hardware/CpuInfo.h"
#include "store/RecordStore.h"

#include "StatusCompare.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QImage>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>

using namespace ts;
using namespace ts::gui;

namespace {

struct Errors {
    explicit Errors(MainWindow& w) : spy(&w.errors(), &ErrorReporter::reported) {
        w.errors().setInteractive(false);
    }
    QSignalSpy spy;
};

} // namespace

class TestGuiKernel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_dbCount = 0;

    std::unique_ptr<MainWindow> window() {
        auto w = std::make_unique<MainWindow>();
        w->errors().setInteractive(false);
        w->setDatabasePath(m_dir.filePath(QString("records-%1.db").arg(++m_dbCount)));
        w->resize(1400, 900);
        w->show();
        return w;
    }

    // Chooses softmax from the kernel list as a user does, and a small, fast task: the space narrowed by
    // constraints (3 configs, or 9 with every algorithm), 3 samples of at least 1 ms each.
    static bool chooseSoftmax(MainWindow& w, const QString& size, std::int64_t budget, std::size_t batch,
                              bool everyAlgorithm = false) {
        TaskPanel* panel = w.taskPanel();
        QComboBox* kernels = panel->kernelBox();
        int index = kernels->findData(TaskPanel::catalogKernelId("softmax"));
        if (index < 0)
            return false;
        kernels->setCurrentIndex(index);
        emit kernels->activated(index);
        if (panel->problemEdit()->isReadOnly() || panel->backendBox()->currentData().toString() != "cpu")
            return false;
        panel->problemEdit()->setText(size);
        panel->constraintsEdit()->setText(everyAlgorithm ? "THREADS == 1; UNROLL == 1"
                                                         : "THREADS == 1; UNROLL == 1; ALGORITHM == 'store'");
        panel->timeoutBox()->setValue(20);
        panel->repeatBox()->setValue(3);
        panel->minRepeatBox()->setValue(1);
        panel->warmupBox()->setValue(1);
        SessionPlan task = panel->task();
        task.strategy = "random_sample";
        task.options.clear();
        task.budget = budget;
        task.batchSize = batch;
        task.seed = 3;
        task.timeLimitS = 0;
        task.patience = 0;
        task.targetMs = 0;
        panel->setTask(task);
        return true;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("TunescopeTest");
        QCoreApplication::setApplicationName("TestGuiKernel");
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        qputenv("TUNESCOPE_WORKER", TUNESCOPE_WORKER);
        qputenv("TUNESCOPE_CACHE_DIR", m_dir.filePath("builds").toUtf8());
    }

    // A kernel.json in TUNESCOPE_KERNEL_PATH whose constraint nests 50,000 deep is skipped at start-up like
    // any malformed spec: the window opens and lists the other kernels.
    void deepSpecInTheKernelPathIsSkippedAtStart() {
        const QString folder = m_dir.filePath("path/deep");
        QVERIFY(QDir().mkpath(folder));
        const QByteArray deep = QByteArray(50000, '(') + "T" + QByteArray(50000, ')') + " > 0";
        for (const char* source : {"/k.cpp", "/ref.cpp"}) {
            QFile file(folder + source);
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        QFile spec(folder + "/kernel.json");
        QVERIFY(spec.open(QIODevice::WriteOnly));
        spec.write(R"({"name": "deep", "problem": [{"name": "N", "default": 64}],
            "arguments": [{"name": "y", "count": "N", "output": true}], "reference": {"source": "ref.cpp"},
            "variants": {"cpu": {"source": "k.cpp", "parameters": [{"name": "T", "values": [1], "default": 1}],
            "constraints": [")" +
                   deep + R"("]}}})");
        spec.close();
        qputenv("TUNESCOPE_KERNEL_PATH", m_dir.filePath("path").toUtf8());
        auto w = window();
        Errors errors(*w);
        qunsetenv("TUNESCOPE_KERNEL_PATH");
        QComboBox* kernels = w->taskPanel()->kernelBox();
        QVERIFY(kernels->findData(TaskPanel::catalogKernelId("softmax")) >= 0);
        QCOMPARE(kernels->findData(TaskPanel::catalogKernelId("deep")), -1);
        // Skipped, and said so: one report naming the file and the nesting limit.
        QTRY_COMPARE(errors.spy.count(), 1);
        const QString message = errors.spy.front().at(1).toString();
        QVERIFY2(message.contains(folder + "/kernel.json") && message.contains("200 levels deep"),
                 qPrintable(message));
    }

    void cpuSessionAgreesWithDatabase() {
        auto w = window();
        Errors errors(*w);
        QVERIFY(chooseSoftmax(*w, "rows=8,cols=64", 3, 1));
        QVERIFY(w->hardwareView()->showsCpu());
        const CpuInfo cpu = CpuInfo::query();
        QTableWidget* features = w->hardwareView()->features();
        // cores, caches, SIMD, and the peaks: max clock, peak FP32, memory bandwidth
        QCOMPARE(features->rowCount(), 7 + static_cast<int>(cpu.caches.size()));
        QCOMPARE(features->item(0, 1)->text(), QString::number(cpu.logicalCpus));
        QCOMPARE(features->item(1, 1)->text(), QString::number(cpu.physicalCores));
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QTest::mouseClick(w->startButton(), Qt::LeftButton);
        QCOMPARE(errors.spy.count(), 0);
        QVERIFY(ended.count() == 1 || ended.wait(60000));
        QCOMPARE(ended.first().first().toString(), QString("completed"));
        QCOMPARE(errors.spy.count(), 0);

        RecordStore store(w->databasePath().toStdString());
        std::int64_t id = w->runData().info().sessionId;
        QVERIFY(id > 0);
        SessionRecord record = *store.session(id);
        QCOMPARE(record.backend, std::string("cpu"));
        QCOMPARE(record.kernel, std::string("softmax"));
        auto settings = nlohmann::json::parse(record.settings);
        QCOMPARE(settings["kernel"]["size"].get<std::string>(), std::string("rows=8,cols=64"));
        QCOMPARE(settings["kernel"]["repeat"].get<int>(), 3);
        QCOMPARE(settings["constraints"].size(), std::size_t{3});

        std::vector<StoredTrial> stored = store.trials(id);
        QCOMPARE(static_cast<int>(stored.size()), 3);
        TrialTableModel* model = w->explorerView()->model();
        QCOMPARE(model->rowCount(), 3);
        QCOMPARE(w->runData().trials().size(), std::size_t{3});
        for (std::size_t row = 0; row < stored.size(); ++row) {
            const Trial& t = w->runData().trials()[row];
            QCOMPARE(stored[row].status, std::string("ok"));
            COMPARE_STATUS(t.measurement.status, MeasureStatus::Ok);
            QCOMPARE(t.measurement.objective, stored[row].objective);
            QCOMPARE(t.index, stored[row].index);
            QCOMPARE(t.measurement.samples.size(), std::size_t{3});
        }
        QVERIFY(!w->runData().info().optimum); // no optimum line for a kernel measured for real
    }

    void badSizeShowsOneErrorAndStartsNothing() {
        auto w = window();
        Errors errors(*w);
        QVERIFY(chooseSoftmax(*w, "8,sixty-four", 3, 1));
        QTest::mouseClick(w->startButton(), Qt::LeftButton);
        QCOMPARE(errors.spy.count(), 1);
        QVERIFY(errors.spy.first().at(1).toString().contains("8,sixty-four"));
        QVERIFY(!w->runner().isRunning());
        QVERIFY(w->startButton()->isEnabled());
        RecordStore store(w->databasePath().toStdString());
        QCOMPARE(store.sessions().size(), std::size_t{0});
    }

    void kernelSpecFileOpensOrShowsOneError() {
        auto w = window();
        Errors errors(*w);
        const int kernels = w->taskPanel()->kernelBox()->count();
        QVERIFY(!w->openKernelSpec(m_dir.filePath("missing/kernel.json")));
        QCOMPARE(errors.spy.count(), 1);
        QVERIFY(errors.spy.first().at(1).toString().contains("missing"));
        QCOMPARE(w->taskPanel()->kernelBox()->count(), kernels);
        QVERIFY(!w->kernelSpec());

        QVERIFY(w->openKernelSpec(TUNESCOPE_KERNELS "/softmax/kernel.json"));
        QCOMPARE(errors.spy.count(), 1);
        QCOMPARE(QString::fromStdString(w->kernelSpec()->name), QString("softmax"));
        QVERIFY(!w->taskPanel()->problemEdit()->isReadOnly());
        QCOMPARE(w->taskPanel()->problemEdit()->text(), QString("rows=4096,cols=1024"));
        QCOMPARE(w->taskPanel()->task().kernel.kernelSpec,
                 std::string(TUNESCOPE_KERNELS "/softmax/kernel.json"));
    }

    void interruptedCpuSessionResumes() {
        auto w = window();
        Errors errors(*w);
        QVERIFY(chooseSoftmax(*w, "rows=8,cols=64", 4, 1, true));
        QSignalSpy ended(w.get(), &MainWindow::sessionEnded);
        QVERIFY(w->startSession());
        QTRY_VERIFY_WITH_TIMEOUT(!w->runData().trials().empty(), 60000);
        w->runner().cancel();
        QVERIFY(ended.count() == 1 || ended.wait(60000));
        std::int64_t id = w->runData().info().sessionId;
        std::size_t measured = w->runData().trials().size();
        QCOMPARE(ended.first().first().toString(), QString("cancelled"));
        QVERIFY(measured < 4); // each config compiles first: the cancel lands long before the budget

        w->showView("records");
        w->recordsView()->reload();
        QVERIFY(w->recordsView()->selectSession(id));

        // Recorded on another machine: the resume fails with one message and the record is left as it was.
        const QString db = w->databasePath();
        const std::string device = RecordStore(db.toStdString()).session(id)->device;
        ts::test::execSql(
            db, fmt::format("UPDATE sessions SET device = 'cpu: another machine' WHERE id = {}", id));
        ended.clear();
        QVERIFY(w->resumeSession(id));
        QVERIFY(ended.wait(60000));
        QCOMPARE(ended.first().first().toString(), QString("failed"));
        QCOMPARE(errors.spy.count(), 1);
        QVERIFY2(errors.spy.first().at(1).toString().contains("was measured on cpu: another machine"),
                 qPrintable(errors.spy.first().at(1).toString()));
        QCOMPARE(RecordStore(db.toStdString()).trials(id).size(), measured);
        QCOMPARE(QString::fromStdString(RecordStore(db.toStdString()).session(id)->status),
                 QString("cancelled"));
        ts::test::execSql(db, fmt::format("UPDATE sessions SET device = '{}' WHERE id = {}", device, id));
        errors.spy.clear();

        ended.clear();
        QVERIFY(w->resumeSession(id));
        // The finished trials reach the views once the session is rebuilt, before it measures on.
        QTRY_VERIFY_WITH_TIMEOUT(w->runData().trials().size() >= measured, 60000);
        QVERIFY(ended.count() > 0 || ended.wait(60000));
        QCOMPARE(ended.first().first().toString(), QString("completed"));
        QCOMPARE(errors.spy.count(), 0);
        RecordStore store(w->databasePath().toStdString());
        auto stored = store.trials(id);
        QCOMPARE(stored.size(), std::size_t{4});
        QCOMPARE(w->runData().trials().size(), std::size_t{4});
        std::set<std::uint64_t> unique;
        for (const StoredTrial& t : stored)
            unique.insert(t.index);
        QCOMPARE(unique.size(), stored.size());         // nothing measured twice
        for (std::size_t i = 0; i < stored.size(); ++i) // the views show the session's trials, in order
            QCOMPARE(w->runData().trials()[i].number, stored[i].number);
        QCOMPARE(store.sessions().size(), std::size_t{1});
    }

    // The window's screenshot mode on a kernel measured for real (what scripts/gpu-check pictures on a GPU
    // with --backend cuda): the session of --kernel at --kernel-size is recorded and pictured; a kernel and
    // a dataset together, an unknown kernel or a backend the kernel has none of are one sentence, exit 1.
    void screenshotOfAKernelSession() {
        QTemporaryDir dir;
        const QString png = dir.filePath("kernel.png"), db = dir.filePath("shots.db");
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("XDG_CONFIG_HOME", dir.filePath("config"));
        process.setProcessEnvironment(env);
        process.start(TUNESCOPE_GUI,
                      {"--kernel", "gemm", "--backend", "cpu", "--kernel-size", "64,48,32", "--budget", "3",
                       "--db", db, "--screenshot", png, "--view", "convergence"});
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QCOMPARE(QImage(png).size(), QSize(1600, 1000));
        RecordStore store(db.toStdString());
        QCOMPARE(store.sessions().size(), std::size_t{1});
        const SessionRecord session = store.sessions().front();
        QCOMPARE(QString::fromStdString(session.kernel), QString("gemm"));
        QCOMPARE(QString::fromStdString(session.backend), QString("cpu"));
        QVERIFY2(QString::fromStdString(session.problem).contains("48"), session.problem.c_str());
        QCOMPARE(store.trials(session.id).size(), std::size_t{3});

        const QList<std::pair<QStringList, QString>> refused{
            {{"--kernel", "gemm", "--dataset", "x.json"},
             "--kernel and --dataset name two things to tune; give one."},
            {{"--kernel", "nosuch"}, "Unknown kernel \"nosuch\""},
            {{"--kernel", "gemm", "--backend", "opencl"},
             "Kernel gemm cannot be measured on the opencl backend"}};
        for (const auto& [arguments, sentence] : refused) {
            process.start(TUNESCOPE_GUI,
                          arguments + QStringList{"--db", db, "--screenshot", dir.filePath("no.png")});
            QVERIFY(process.waitForFinished(60000));
            QCOMPARE(process.exitCode(), 1);
            const QString err = QString::fromUtf8(process.readAllStandardError());
            QVERIFY2(err.contains(sentence), qPrintable(err));
            QVERIFY(!QFileInfo::exists(dir.filePath("no.png")));
        }
    }
};

QTEST_MAIN(TestGuiKernel)
#include "TestGuiKernel.moc"
