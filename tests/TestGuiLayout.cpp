// The window holds together at common screen sizes: laid out offscreen on screens of 1280x800, 1600x1000 and
// 1920x1080 (and 1280x800 at device pixel ratio 2), in every view, side by side, and after selecting trials
// of a replay and of a cpu session, no visible label, button, tab title or table cell shows less than its
// text, no two visible docks overlap, and the window and its docks lie on the screen. Each screen is its own
// child process of this suite (the offscreen platform takes its screens from a config file when the
// application starts); the parent records the two sessions with the real CLI first.
#include "window/ErrorReporter.h"
#include "window/MainWindow.h"
#include "window/TaskPanel.h"

#include "data/RunData.h"

#include <QAbstractButton>
#include <QApplication>
#include <QChartView>
#include <QDockWidget>
#include <QLabel>
#include <QMouseEvent>
#include <QProcess>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStyle>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextDocumentFragment>
#include <QToolBar>
#include <QWindow>
#include <QtTest>

#include "CliRun.h"
#include "ShownText.h"

#include "hardware/LaunchShape.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpace.h"
#include "store/RecordStore.h"

#include <nlohmann/json.hpp>

#include <cstdio>

using namespace ts;
using namespace ts::gui;

namespace {

const char* kChildFlag = "--layout-child";
// Smaller than this, a chart drops its tick labels ("..."); a larger one in a smaller dock scrolls.
const QSize kReadableChart(240, 220);

// What is wrong with the window's layout as it is now, one line per problem; `when` names the moment.
QStringList layoutProblems(MainWindow& window, const QString& when) {
    QStringList problems;
    const auto say = [&](const QString& what) { problems << QString("%1: %2").arg(when, what); };
    const QRect screen = window.screen()->availableGeometry();
    const QRect frame = window.frameGeometry();
    if (!screen.contains(frame))
        say(QString("the window %1x%2+%3+%4 does not fit the screen %5x%6")
                .arg(frame.width())
                .arg(frame.height())
                .arg(frame.x())
                .arg(frame.y())
                .arg(screen.width())
                .arg(screen.height()));
    const QRect inside = window.rect();
    QList<QPair<QString, QRect>> docks;
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
        if (!dock->isVisible() || dock->visibleRegion().isEmpty())
            continue; // hidden, or a tab behind another
        const QRect box(dock->mapTo(&window, QPoint(0, 0)), dock->size());
        if (!inside.contains(box))
            say(QString("dock \"%1\" lies outside the window").arg(dock->windowTitle()));
        for (const auto& [title, other] : docks)
            if (box.intersects(other))
                say(QString("docks \"%1\" and \"%2\" overlap").arg(dock->windowTitle(), title));
        docks.push_back({dock->windowTitle(), box});
    }
    for (QLabel* label : window.findChildren<QLabel*>()) {
        if (!label->isVisible() || label->visibleRegion().isEmpty() || label->wordWrap() ||
            label->text().isEmpty())
            continue;
        const QString text = label->textFormat() == Qt::RichText || Qt::mightBeRichText(label->text())
                                 ? QTextDocumentFragment::fromHtml(label->text()).toPlainText()
                                 : label->text();
        int widest = 0;
        for (const QString& line : text.split('\n'))
            widest = std::max(widest, label->fontMetrics().horizontalAdvance(line));
        // Its own width, and what its parents (a dock, a scroll area's viewport) leave visible of it.
        const int shown = label->visibleRegion().boundingRect().intersected(label->contentsRect()).width();
        if (widest > shown + 1)
            say(QString("label \"%1\" shows %2 px of %3 px of text")
                    .arg(text.left(40))
                    .arg(shown)
                    .arg(widest));
    }
    for (QAbstractButton* button : window.findChildren<QAbstractButton*>()) {
        if (!button->isVisible() || button->visibleRegion().isEmpty() || button->text().isEmpty())
            continue;
        const int needed = button->fontMetrics().horizontalAdvance(QString(button->text()).remove('&'));
        const int shown = button->visibleRegion().boundingRect().width();
        if (needed > shown)
            say(QString("button \"%1\" shows %2 px of %3 px of text")
                    .arg(button->text())
                    .arg(shown)
                    .arg(needed));
    }
    // Tab titles whole, and all of a bar's tabs in view; table cells in view hold their text.
    for (QTabBar* bar : window.findChildren<QTabBar*>())
        for (const QString& problem : test::tabProblems(*bar))
            say(problem);
    for (QTableView* table : window.findChildren<QTableView*>()) {
        QWidget* dock = table->parentWidget();
        while (dock && !qobject_cast<QDockWidget*>(dock))
            dock = dock->parentWidget();
        for (const QString& problem : test::cellProblems(*table, dock ? dock->windowTitle() : "a"))
            say(problem);
    }
    // A view's dock scrolls down when it is short, never sideways: what is to its right would be hidden.
    for (const QString& name : MainWindow::viewNames()) {
        QWidget* view = window.view(name);
        auto* area = view ? qobject_cast<QScrollArea*>(view->parentWidget()->parentWidget()) : nullptr;
        if (area && area->isVisible() && !area->visibleRegion().isEmpty() &&
            area->horizontalScrollBar()->maximum() > 0)
            say(QString("view %1 scrolls sideways: %2 px wide in %3 px")
                    .arg(name)
                    .arg(view->width())
                    .arg(area->viewport()->width()));
    }
    for (QChartView* chart : window.findChildren<QChartView*>()) {
        if (!chart->isVisible() || chart->visibleRegion().isEmpty())
            continue;
        if (chart->width() < kReadableChart.width() || chart->height() < kReadableChart.height())
            say(QString("a chart \"%1\" is %2x%3 px, too small for its axes")
                    .arg(chart->chart()->title())
                    .arg(chart->width())
                    .arg(chart->height()));
    }
    return problems;
}

// Drags the dock separator that starts `from` px right of the left edge of `dock` by `by` px; what is wrong.
QString dragSeparator(MainWindow& window, QDockWidget* dock, int by, const QString& what) {
    const QPoint topLeft = dock->mapTo(&window, QPoint(0, 0));
    const int extent = window.style()->pixelMetric(QStyle::PM_DockWidgetSeparatorExtent, nullptr, &window);
    const QPoint grip(topLeft.x() + dock->width() + std::max(1, extent / 2),
                      topLeft.y() + dock->height() / 2);
    const int before = dock->width();
    QTest::mousePress(&window, Qt::LeftButton, {}, grip);
    for (int step = 1; step <= 4; ++step) {
        QMouseEvent move(QEvent::MouseMove, QPointF(grip + QPoint(by * step / 4, 0)),
                         window.mapToGlobal(QPointF(grip + QPoint(by * step / 4, 0))), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &move);
        QTest::qWait(20); // the window moves its separators on a timer
    }
    QTest::mouseRelease(&window, Qt::LeftButton, {}, grip + QPoint(by, 0));
    QApplication::processEvents();
    if (std::abs(dock->width() - before - by) > std::abs(by) / 2)
        return QString("dragging the separator right of %1 by %2 px moved it by %3 px")
            .arg(what)
            .arg(by)
            .arg(dock->width() - before);
    return {};
}

void settle(MainWindow& window) {
    for (int i = 0; i < 5; ++i) {
        QApplication::processEvents();
        QApplication::sendPostedEvents();
    }
    window.refreshNow(true);
    QApplication::processEvents();
}

// Selects each of the first rows of the session in the window, checking the layout after each.
void selectTrials(MainWindow& window, const QString& session, QStringList& problems) {
    const int rows = static_cast<int>(std::min<std::size_t>(window.runData().trials().size(), 3));
    if (rows == 0)
        problems << QString("%1: the session shows no trials").arg(session);
    for (int row = 0; row < rows; ++row) {
        window.runData().select(row);
        settle(window);
        problems << layoutProblems(window, QString("%1, trial %2 selected").arg(session).arg(row + 1));
    }
}

// The child: one screen (from the platform's config file), every check, problems on stdout, exit 1 if any.
int runChild(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("TunescopeTest");
    QCoreApplication::setApplicationName("TestGuiLayout");
    QSettings().clear();
    const QString database = qEnvironmentVariable("TS_LAYOUT_DB");
    QStringList problems;
    {
        MainWindow window;
        window.errors().setInteractive(false);
        window.setDatabasePath(database);
        window.show();
        if (!QTest::qWaitForWindowExposed(&window))
            problems << "the window was never exposed";
        settle(window);
        problems << layoutProblems(window, "first launch");
        for (const QString& view : MainWindow::viewNames()) {
            window.showView(view);
            settle(window);
            problems << layoutProblems(window, QString("view %1").arg(view));
        }
        window.tileViews();
        settle(window);
        problems << layoutProblems(window, "all views side by side");
        window.resetLayout();
        settle(window);
        problems << layoutProblems(window, "after View > Reset layout");
        // The separators move: the task dock's and the one between the views and the trial details.
        QDockWidget* task = window.findChild<QDockWidget*>("dock_task");
        QDockWidget* views = window.findChild<QDockWidget*>("dock_convergence");
        for (const QString& problem : {dragSeparator(window, task, 60, "the task dock"),
                                       dragSeparator(window, views, -60, "the views")})
            if (!problem.isEmpty())
                problems << problem;
        settle(window);
        problems << layoutProblems(window, "after dragging the separators");
        for (const auto& [id, name] :
             {std::pair{1, "replay session"}, std::pair{2, "cpu session"}, std::pair{3, "cuda session"}}) {
            window.openSession(id);
            settle(window);
            if (window.runData().trials().empty())
                problems << QString("%1: no trials opened").arg(name);
            selectTrials(window, name, problems);
            window.showView("hardware");
            settle(window);
            problems << layoutProblems(window, QString("%1, hardware view").arg(name));
        }
        window.close();
    }
    // What the window saved comes back on the same screen without growing past it.
    {
        MainWindow again;
        again.errors().setInteractive(false);
        again.show();
        if (QTest::qWaitForWindowExposed(&again))
            settle(again);
        problems << layoutProblems(again, "restarted with the saved layout");
    }
    problems.removeDuplicates();
    for (const QString& problem : problems)
        std::printf("%s\n", qPrintable(problem));
    const QScreen* screen = QGuiApplication::primaryScreen();
    std::printf("screen %dx%d at device pixel ratio %g: %lld problems\n", screen->size().width(),
                screen->size().height(), screen->devicePixelRatio(), static_cast<long long>(problems.size()));
    return problems.isEmpty() ? 0 : 1;
}

} // namespace

class TestGuiLayout : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_database;

private slots:
    void initTestCase();
    void fitsTheScreen_data();
    void fitsTheScreen();
};

namespace {

// A cuda session (3) of the builtin gemm on an H200 as the cuda backend stores one: the trials' configs and
// launch shapes from the kernel's cuda variant, the resource metrics its ptxas report gives (registers,
// shared_bytes, threads_per_block, occupancy). This machine has no GPU to measure it, so the times and
// resources are made up; the layout test only needs what the window shows of such a session.
void storeCudaSession(const QString& database) {
    const KernelSpec spec = KernelCatalog().find("gemm");
    const ProblemSize size = spec.defaultSize();
    const KernelSpace space(spec, "cuda", size);
    std::vector<std::string> names;
    for (const Parameter& p : space.space().parameters())
        names.push_back(p.name);
    RecordStore store(database.toStdString());
    SessionRecord record;
    record.kernel = "gemm";
    record.backend = "cuda";
    record.device = "NVIDIA H200";
    record.problem = problemJson(spec, size);
    record.strategy = "random_sample";
    record.budget = 12;
    record.spaceMode = "constrained";
    record.parameters = nlohmann::json(names).dump();
    const std::int64_t id = store.beginSession(record);
    const std::vector<SearchSpace::Index>& valid = space.space().validIndices();
    for (std::size_t i = 0; i < 12 && i < valid.size(); ++i) {
        Trial trial;
        trial.number = static_cast<std::int64_t>(i);
        trial.index = valid[i * valid.size() / 12];
        trial.config = space.space().config(trial.index);
        trial.measurement.status = MeasureStatus::Ok;
        trial.measurement.objective = 0.5 + 0.1 * static_cast<double>(i % 5);
        const LaunchShape launch = LaunchShape::of(spec, space, trial.index);
        trial.measurement.metrics = {{"registers", 32.0 + 8.0 * static_cast<double>(i % 6)},
                                     {"shared_bytes", 4096.0 * static_cast<double>(1 + i % 4)},
                                     {"threads_per_block", static_cast<double>(launch.threadsPerBlock())},
                                     {"occupancy", 0.25 + 0.125 * static_cast<double>(i % 4)}};
        store.commit(id, trial, names);
    }
    store.endSession(id, "completed");
}

} // namespace

// One replay session (1) and one cpu session of a real kernel at a tiny size (2), recorded by the CLI; a
// stored cuda session (3).
void TestGuiLayout::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_database = m_dir.filePath("records.db");
    const test::CliResult replay =
        test::runCli({"tune", "--dataset", TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz",
                      "--budget", "30", "--db", m_database});
    QVERIFY2(replay.exitCode == 0, qPrintable(replay.err));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("TUNESCOPE_WORKER", TUNESCOPE_WORKER);
    const test::CliResult cpu = test::runCli(
        {"tune", "--kernel", "softmax", "--size", "rows=64,cols=64", "--budget", "3", "--db", m_database},
        environment);
    QVERIFY2(cpu.exitCode == 0, qPrintable(cpu.err));
    storeCudaSession(m_database);
}

void TestGuiLayout::fitsTheScreen_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<double>("ratio");
    QTest::newRow("1280x800") << 1280 << 800 << 1.0;
    QTest::newRow("1600x1000") << 1600 << 1000 << 1.0;
    QTest::newRow("1920x1080") << 1920 << 1080 << 1.0;
    QTest::newRow("1280x800 at device pixel ratio 2") << 1280 << 800 << 2.0;
}

void TestGuiLayout::fitsTheScreen() {
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(double, ratio);
    // The offscreen platform's screen sizes are in device-independent pixels.
    const QString config = m_dir.filePath(QString("screen-%1x%2-%3.json").arg(width).arg(height).arg(ratio));
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QString(R"({"screens": [{"name": "screen", "x": 0, "y": 0, "width": %1, "height": %2,
                       "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": %3}]})")
                   .arg(width)
                   .arg(height)
                   .arg(ratio)
                   .toUtf8());
    file.close();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("QT_QPA_PLATFORM", "offscreen:configfile=" + config);
    environment.insert("TS_LAYOUT_DB", m_database);
    environment.insert("XDG_CONFIG_HOME", m_dir.filePath("config"));
    QProcess child;
    child.setProcessEnvironment(environment);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(), {kChildFlag});
    QVERIFY(child.waitForFinished(300000));
    QStringList report;
    for (const QString& line : QString::fromUtf8(child.readAll()).split('\n'))
        if (!line.startsWith("QStandardPaths:") && !line.contains("propagateSizeHints") && !line.isEmpty())
            report << line;
    for (const QString& line : child.exitCode() != 0 ? report : report.mid(report.size() - 1))
        qInfo("%s", qPrintable(line));
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
             qPrintable(report.isEmpty() ? QString("the child printed nothing") : report.back()));
}

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (qstrcmp(argv[i], kChildFlag) == 0)
            return runChild(argc, argv);
    QApplication app(argc, argv);
    TestGuiLayout test;
    return QTest::qExec(&test, argc, argv);
}

#include "TestGuiLayout.moc"
