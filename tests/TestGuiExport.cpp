// Charts of a real run are exported to PNG and SVG (files that decode, at the chart's size, with the chart
// drawn in them), failures name the file and leave nothing behind, every chart carries the export actions,
// and the charts follow a dark palette, set before they are made or at runtime (`tunescope --palette`).
#include "window/AppPalette.h"
#include "charts/ChartExporter.h"
#include "views/ConvergenceView.h"
#include "window/ErrorReporter.h"
#include "views/ExplorerView.h"
#include "charts/HeatmapWidget.h"
#include "charts/HistogramWidget.h"
#include "window/MainWindow.h"
#include "charts/MarginalPlotWidget.h"
#include "charts/ParallelCoordinatesWidget.h"
#include "data/RunData.h"
#include "window/TaskPanel.h"
#include "views/TrialDetailsView.h"
#include "data/TrialTableModel.h"

#include <QAbstractAxis>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QLineSeries>
#include <QMenu>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QXmlStreamReader>
#include <QtTest>
#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using namespace ts;
using namespace ts::gui;

namespace {

const QString kGemm = TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz";

int distinctColours(const QImage& image) {
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    return static_cast<int>(colours.size());
}

// What an SVG file holds: whether it parsed, its root element, the number of drawn shapes and its texts.
struct SvgContent {
    bool parsed = false;
    QString root;
    int shapes = 0;
    QStringList texts;
};

SvgContent readSvg(const QString& path) {
    SvgContent svg;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return svg;
    QXmlStreamReader xml(&file);
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        const QString name = xml.name().toString();
        if (svg.root.isEmpty())
            svg.root = name;
        if (name == "path" || name == "rect" || name == "polyline" || name == "line" || name == "image")
            ++svg.shapes;
        if (name == "text")
            svg.texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).simplified();
    }
    svg.parsed = !xml.hasError();
    return svg;
}

// The files in a folder, to check that a failed export left nothing there.
QStringList entries(const QString& folder) {
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
}

// Qt 6.4 tells the widgets of a new application palette in posted events: deliver them.
void setApplicationPalette(const QPalette& palette) {
    QApplication::setPalette(palette);
    QApplication::processEvents();
}

bool isDarkColour(const QColor& colour) {
    return colour.lightness() < 128;
}

// The colour at each corner of the widget as drawn now: the background of every chart widget.
QList<QColor> corners(QWidget* widget) {
    const QImage image = widget->grab().toImage();
    const int w = image.width() - 3, h = image.height() - 3;
    return {image.pixelColor(2, 2), image.pixelColor(w, 2), image.pixelColor(2, h), image.pixelColor(w, h)};
}

} // namespace

class TestGuiExport : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    QPalette m_light;

    ExplorerView* explorer() { return m_window->explorerView(); }

    // The custom-painted charts of the run, each in front and drawn.
    QList<QWidget*> paintedCharts() {
        m_window->showView("explorer");
        QList<QWidget*> widgets;
        for (int tab = 0; tab < explorer()->plots()->count(); ++tab) {
            explorer()->plots()->setCurrentIndex(tab);
            m_window->refreshNow(true);
            QApplication::processEvents();
        }
        widgets << explorer()->heatmap() << explorer()->parallelCoordinates() << explorer()->marginals()
                << m_window->detailsView()->histogram();
        return widgets;
    }

    void showTab(QWidget* plot) {
        m_window->showView("explorer");
        for (int tab = 0; tab < explorer()->plots()->count(); ++tab)
            if (explorer()->plots()->widget(tab)->isAncestorOf(plot) ||
                explorer()->plots()->widget(tab) == plot)
                explorer()->plots()->setCurrentIndex(tab);
        m_window->refreshNow(true);
        QApplication::processEvents();
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("TunescopeTest");
        QCoreApplication::setApplicationName("TestGuiExport");
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_light = QApplication::palette();
        QVERIFY(!isDark(m_light)); // the offscreen platform's palette is light
        // A short real session on the GEMM replay space feeds every chart.
        m_window = std::make_unique<MainWindow>();
        m_window->errors().setInteractive(false);
        ChartExporter::instance().setErrorReporter(&m_window->errors());
        m_window->setDatabasePath(m_dir.filePath("records.db"));
        m_window->resize(1500, 950);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDataset(kGemm);
        QVERIFY(loaded.wait(30000));
        SessionPlan task = m_window->taskPanel()->task();
        task.strategy = "random_sample";
        task.options.clear();
        task.budget = 80;
        task.mode = SpaceMode::Product;
        task.seed = 5;
        m_window->taskPanel()->setTask(task);
        QSignalSpy ended(m_window.get(), &MainWindow::sessionEnded);
        QVERIFY(m_window->startSession());
        QVERIFY(ended.wait(120000));
        QCOMPARE(m_window->runData().trials().size(), std::size_t{80});
        m_window->runData().select(static_cast<int>(*m_window->runData().bestRow()));
    }

    void cleanupTestCase() {
        setApplicationPalette(m_light);
        m_window.reset();
    }

    void cleanup() { setApplicationPalette(m_light); }

    void convergenceChartToPng() {
        m_window->showView("convergence");
        m_window->refreshNow(true);
        QChartView* chart = m_window->convergenceView()->evaluationsChart();
        QVERIFY(chart->width() > 100 && chart->height() > 100);
        const QString png = m_dir.filePath("convergence.png");
        QCOMPARE(ChartExporter::exportPng(chart, png), QString());
        QImage image(png);
        QVERIFY(!image.isNull());
        const double scale = std::max(chart->devicePixelRatioF(), ChartExporter::kMinPngScale);
        QCOMPARE(image.size(), chart->size() * scale);
        QVERIFY2(distinctColours(image) > 20, qPrintable(QString::number(distinctColours(image))));
    }

    void convergenceChartToSvg() {
        m_window->showView("convergence");
        m_window->refreshNow(true);
        QChartView* chart = m_window->convergenceView()->evaluationsChart();
        const QString svg = m_dir.filePath("convergence.svg");
        QCOMPARE(ChartExporter::exportSvg(chart, svg), QString());
        const SvgContent content = readSvg(svg);
        QVERIFY(content.parsed);
        QCOMPARE(content.root, QString("svg"));
        QVERIFY(content.shapes > 10);
        // The title and both axis titles are text in the file, not pixels.
        const QString texts = content.texts.join('|');
        QVERIFY2(texts.contains("Best so far vs evaluations"), qPrintable(texts));
        QVERIFY2(texts.contains("evaluations|") || content.texts.contains("evaluations"), qPrintable(texts));
        QVERIFY2(texts.contains("best (ms)"), qPrintable(texts));
    }

    void paintedChartsToPngAndSvg() {
        const auto& parameters = m_window->runData().parameters();
        for (QWidget* chart : {static_cast<QWidget*>(explorer()->heatmap()),
                               static_cast<QWidget*>(explorer()->parallelCoordinates())}) {
            showTab(chart);
            QVERIFY(chart->isVisible());
            const QString name = chart->metaObject()->className();
            const QString png = m_dir.filePath(QString(name).remove("::") + ".png");
            const QString svg = m_dir.filePath(QString(name).remove("::") + ".svg");
            QCOMPARE(ChartExporter::exportPng(chart, png), QString());
            QImage image(png);
            QVERIFY2(!image.isNull(), qPrintable(name));
            const double scale = std::max(chart->devicePixelRatioF(), ChartExporter::kMinPngScale);
            QCOMPARE(image.size(), chart->size() * scale);
            QVERIFY2(distinctColours(image) > 20, qPrintable(name));
            QCOMPARE(ChartExporter::exportSvg(chart, svg), QString());
            const SvgContent content = readSvg(svg);
            QVERIFY2(content.parsed && content.root == "svg", qPrintable(name));
            QVERIFY2(content.shapes > 0, qPrintable(name));
            // The first parameter's name labels an axis of both (as drawn: the parallel coordinates elide
            // their labels to the room between axes).
            QString label = QString::fromStdString(parameters[0].name);
            if (auto* parallel = qobject_cast<ParallelCoordinatesWidget*>(chart))
                label = parallel->fontMetrics().elidedText(
                    label, Qt::ElideRight, static_cast<int>(parallel->labels().front().rect.width()));
            QVERIFY2(label.size() > 1, qPrintable(label));
            QVERIFY2(content.texts.contains(label), qPrintable(name + ": " + content.texts.join('|')));
        }
    }

    // Root ignores permissions: the places that cannot be written for real are under a regular file and
    // in /proc; a read-only folder is tried too when the tests do not run as root.
    void unwritablePlacesAreNamedAndLeftClean() {
        QChartView* chart = m_window->convergenceView()->evaluationsChart();
        const QString folder = m_dir.filePath("unwritable");
        QVERIFY(QDir().mkpath(folder));
        const QString plain = QDir(folder).filePath("notes.txt");
        {
            QFile file(plain);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QVERIFY(file.write("kept\n") == 5);
        }
        const QStringList before = entries(folder);
        for (ChartExporter::Format format : {ChartExporter::Format::Png, ChartExporter::Format::Svg}) {
            const QString underFile = plain + "/chart.out";
            QString error = ChartExporter::exportChart(chart, format, underFile);
            QVERIFY2(error.startsWith("Cannot write the chart file " + underFile + ": "), qPrintable(error));
            QVERIFY2(error.contains(plain + " is not a folder"), qPrintable(error));
            QVERIFY(error.endsWith('.'));

            const QString inProc = "/proc/tunescope-export-test.out";
            error = ChartExporter::exportChart(chart, format, inProc);
            QVERIFY2(error.startsWith("Cannot write the chart file " + inProc + ": "), qPrintable(error));
            QVERIFY(!QFileInfo::exists(inProc));

            error = ChartExporter::exportChart(chart, format, folder);
            QCOMPARE(error, "The chart file " + folder + " is a directory, not a regular file.");

            // A device is never written through (nor replaced).
            error = ChartExporter::exportChart(chart, format, "/dev/null");
            QCOMPARE(error, QString("The chart file /dev/null is a character device, not a regular file."));

            const QString missing = m_dir.filePath("no-such-folder/chart.out");
            error = ChartExporter::exportChart(chart, format, missing);
            QCOMPARE(error, "Cannot write the chart file " + missing + ": the folder " +
                                m_dir.filePath("no-such-folder") + " does not exist.");
            QVERIFY(!QFileInfo::exists(m_dir.filePath("no-such-folder")));

            if (::geteuid() != 0) {
                const QString readOnly = m_dir.filePath("read-only");
                QVERIFY(QDir().mkpath(readOnly));
                QVERIFY(QFile::setPermissions(readOnly, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
                error = ChartExporter::exportChart(chart, format, readOnly + "/chart.out");
                QVERIFY2(error.startsWith("Cannot write the chart file " + readOnly + "/chart.out: "),
                         qPrintable(error));
                QVERIFY(entries(readOnly).isEmpty());
                QFile::setPermissions(readOnly, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                    QFileDevice::ExeOwner);
            }
        }
        QCOMPARE(entries(folder), before);
        QFile file(plain);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("kept\n"));
    }

    // A write that fails part way (the disk full: here the process's file size limit, which fails writes
    // the same way) names the file and the reason, keeps the earlier file whole and leaves no temporary file.
    void failedWriteKeepsTheEarlierFile() {
        QChartView* chart = m_window->convergenceView()->evaluationsChart();
        const QString folder = m_dir.filePath("full");
        QVERIFY(QDir().mkpath(folder));
        const QString png = QDir(folder).filePath("chart.png");
        QCOMPARE(ChartExporter::exportPng(chart, png), QString());
        QFile earlier(png);
        QVERIFY(earlier.open(QIODevice::ReadOnly));
        const QByteArray before = earlier.readAll();
        earlier.close();
        QVERIFY(before.size() > 8192);

        rlimit saved{};
        QCOMPARE(::getrlimit(RLIMIT_FSIZE, &saved), 0);
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN); // a write past the limit fails with EFBIG
        QVERIFY(oldHandler != SIG_ERR);
        rlimit limited = saved;
        limited.rlim_cur = 4096;
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &limited), 0);
        const QString pngError = ChartExporter::exportPng(chart, png);
        const QString svgError = ChartExporter::exportSvg(chart, QDir(folder).filePath("chart.svg"));
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &saved), 0);
        std::signal(SIGXFSZ, oldHandler);

        QVERIFY2(pngError.startsWith("Cannot write the chart file " + png + ": "), qPrintable(pngError));
        QVERIFY2(pngError.contains("too large"), qPrintable(pngError));
        QVERIFY2(
            svgError.startsWith("Cannot write the chart file " + QDir(folder).filePath("chart.svg") + ": "),
            qPrintable(svgError));
        QCOMPARE(entries(folder), QStringList{"chart.png"});
        QVERIFY(earlier.open(QIODevice::ReadOnly));
        QCOMPARE(earlier.readAll(), before);
    }

    // Every chart of the window (Qt Charts views and painted widgets) has both actions in its context menu;
    // an action writes the chosen file and confirms it, or reports the failure through the ErrorReporter.
    void everyChartHasTheExportMenu() {
        QList<QWidget*> charts = paintedCharts();
        for (QChartView* view : m_window->findChildren<QChartView*>())
            charts << view;
        QVERIFY(charts.size() >=
                12); // convergence 2, cost model 2, hardware 3, importance, comparison, workload 2
        for (QWidget* chart : charts) {
            const QString name = chart->metaObject()->className();
            QCOMPARE(chart->contextMenuPolicy(), Qt::ActionsContextMenu);
            QStringList texts;
            for (QAction* action : chart->actions())
                texts << action->text();
            QVERIFY2(texts.contains("Export chart as PNG...") && texts.contains("Export chart as SVG..."),
                     qPrintable(name + ": " + texts.join('|')));
        }

        QWidget* heatmap = explorer()->heatmap();
        showTab(heatmap);
        QString chosen = m_dir.filePath("from-menu.svg");
        ChartExporter::instance().setFileChooser(
            [&chosen](QWidget*, ChartExporter::Format) { return chosen; });
        QSignalSpy exported(&ChartExporter::instance(), &ChartExporter::exported);
        QSignalSpy reported(&m_window->errors(), &ErrorReporter::reported);
        heatmap->findChild<QAction*>("exportChartSVG")->trigger();
        QCOMPARE(exported.size(), 1);
        QCOMPARE(exported.first().at(0).toString(), chosen);
        QCOMPARE(exported.first().at(1).toString(), "Chart written to " + chosen + ".");
        QVERIFY(readSvg(chosen).parsed);
        QCOMPARE(reported.size(), 0);

        chosen = "/proc/tunescope-menu-test.png";
        heatmap->findChild<QAction*>("exportChartPNG")->trigger();
        QCOMPARE(exported.size(), 1);
        QCOMPARE(reported.size(), 1);
        QCOMPARE(reported.first().at(0).toString(), QString("Cannot export the chart"));
        QVERIFY2(reported.first().at(1).toString().startsWith("Cannot write the chart file " + chosen + ": "),
                 qPrintable(reported.first().at(1).toString()));

        chosen.clear(); // the dialog cancelled: nothing written, nothing said
        heatmap->findChild<QAction*>("exportChartPNG")->trigger();
        QCOMPARE(exported.size(), 1);
        QCOMPARE(reported.size(), 1);
        ChartExporter::instance().setFileChooser({});
    }

    // A right click opens a menu with both actions, on a Qt Charts view (the click lands on its viewport)
    // and on a painted chart.
    void rightClickOpensTheExportMenu() {
        m_window->showView("convergence");
        QChartView* view = m_window->convergenceView()->evaluationsChart();
        QWidget* heatmap = explorer()->heatmap();
        for (QWidget* target : {view->viewport(), heatmap}) {
            if (target == heatmap)
                showTab(heatmap);
            QVERIFY(target->isVisible());
            QStringList shown;
            // The menu runs its own event loop: read and close it from there.
            QTimer::singleShot(0, this, [&shown] {
                if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
                    for (QAction* action : menu->actions())
                        shown << action->text();
                    menu->close();
                }
            });
            const QPoint at(target->width() / 2, target->height() / 2);
            QContextMenuEvent event(QContextMenuEvent::Mouse, at, target->mapToGlobal(at));
            QApplication::sendEvent(target, &event);
            QApplication::processEvents();
            QCOMPARE(shown, (QStringList{"Export chart as PNG...", "Export chart as SVG..."}));
        }
    }

    // A palette switched at runtime (the desktop going dark): every chart view's chart turns dark with light
    // axis labels and title, the series keep their colours, and an axis made afterwards is light on dark too.
    void chartViewsFollowTheDarkPalette() {
        m_window->showView("convergence");
        ConvergenceView* convergence = m_window->convergenceView();
        auto* optimum =
            qobject_cast<QLineSeries*>(convergence->evaluationsChart()->chart()->series().first());
        QVERIFY(optimum);
        const QPen optimumPen = optimum->pen();
        const QList<QChartView*> views = m_window->findChildren<QChartView*>();
        QVERIFY(!views.isEmpty());
        for (QChartView* view : views)
            QVERIFY(!isDarkColour(view->chart()->backgroundBrush().color()));

        setApplicationPalette(darkPalette());
        for (QChartView* view : views) {
            QChart* chart = view->chart();
            const QString title = chart->title();
            QVERIFY2(isDarkColour(chart->backgroundBrush().color()), qPrintable(title));
            QVERIFY2(!isDarkColour(chart->titleBrush().color()), qPrintable(title));
            for (QAbstractAxis* axis : chart->axes()) {
                QVERIFY2(!isDarkColour(axis->labelsColor()), qPrintable(title + ": " + axis->titleText()));
                QVERIFY2(!isDarkColour(axis->titleBrush().color()),
                         qPrintable(title + ": " + axis->titleText()));
            }
        }
        QCOMPARE(optimum->pen(), optimumPen);
        // The log scale makes new y axes.
        convergence->setLogScale(true);
        for (QAbstractAxis* axis : convergence->evaluationsChart()->chart()->axes())
            QVERIFY2(!isDarkColour(axis->labelsColor()), qPrintable(axis->titleText()));
        convergence->setLogScale(false);
        // The exported picture is the dark chart.
        const QString png = m_dir.filePath("convergence-dark.png");
        QCOMPARE(ChartExporter::exportPng(convergence->evaluationsChart(), png), QString());
        QImage image(png);
        QVERIFY(isDarkColour(image.pixelColor(image.width() / 2, 8)));

        setApplicationPalette(m_light);
        for (QChartView* view : views) {
            QVERIFY(!isDarkColour(view->chart()->backgroundBrush().color()));
            for (QAbstractAxis* axis : view->chart()->axes())
                QVERIFY(isDarkColour(axis->labelsColor()));
        }
        QCOMPARE(optimum->pen(), optimumPen);
    }

    // A chart view made under a dark palette starts dark.
    void chartViewMadeUnderDarkPaletteIsDark() {
        setApplicationPalette(darkPalette());
        RunData data;
        ConvergenceView view(data);
        view.resize(700, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QChart* chart = view.evaluationsChart()->chart();
        QVERIFY(isDarkColour(chart->backgroundBrush().color()));
        QVERIFY(!chart->axes().isEmpty());
        for (QAbstractAxis* axis : chart->axes())
            QVERIFY(!isDarkColour(axis->labelsColor()));
    }

    // The painted charts draw their backgrounds from the palette, also when it changes while they are shown
    // (the parallel coordinates keep their lines in a cached picture).
    void paintedChartsFollowTheDarkPalette() {
        for (QWidget* chart : paintedCharts()) {
            const QString name = chart->metaObject()->className();
            showTab(chart);
            for (const QColor& corner : corners(chart))
                QVERIFY2(!isDarkColour(corner), qPrintable(name + ": " + corner.name()));
            setApplicationPalette(darkPalette()); // nothing else changes: no new data, no resize
            for (const QColor& corner : corners(chart))
                QVERIFY2(isDarkColour(corner), qPrintable(name + ": " + corner.name()));
            setApplicationPalette(m_light);
        }
    }

    // The trials table tints rows by status (light tints): their text stays dark under a dark palette.
    void tableTextReadsOnStatusColours() {
        m_window->showView("explorer");
        QAbstractItemModel* model = explorer()->model();
        QVERIFY(model->rowCount() > 0);
        for (const QPalette& palette : {m_light, darkPalette()}) {
            setApplicationPalette(palette);
            const QColor text = explorer()->table()->palette().color(QPalette::Text);
            for (int row = 0; row < model->rowCount(); ++row) {
                const QModelIndex index = model->index(row, TrialTableModel::Time);
                const QVariant foreground = model->data(index, Qt::ForegroundRole);
                const QColor drawn = foreground.isValid() ? foreground.value<QColor>() : text;
                const QColor background = model->data(index, Qt::BackgroundRole).value<QColor>();
                QVERIFY2(
                    std::abs(drawn.lightness() - background.lightness()) > 100,
                    qPrintable(QString("row %1: %2 on %3").arg(row).arg(drawn.name(), background.name())));
            }
        }
    }

    void paletteOption() {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        process.setProcessEnvironment(env);
        process.start(TUNESCOPE_GUI, {"--palette", "purple"});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 1);
        const QStringList lines = QString::fromUtf8(process.readAllStandardError()).trimmed().split('\n');
        QCOMPARE(lines.last(),
                 QString("tunescope: --palette \"purple\" is not a palette (use dark, light or system)."));

        // --palette dark: the screenshot is dark all over (charts included), with light text on it.
        const QString png = m_dir.filePath("dark.png");
        process.start(TUNESCOPE_GUI, {"--palette", "dark", "--screenshot", png, "--after", "30", "--view",
                                      "convergence", "--strategy", "random_sample", "--budget", "60", "--db",
                                      m_dir.filePath("dark.db"), "--size", "1200x800"});
        QVERIFY(process.waitForFinished(90000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QImage image(png);
        QVERIFY(!image.isNull());
        qint64 dark = 0, light = 0;
        for (int y = 0; y < image.height(); y += 2)
            for (int x = 0; x < image.width(); x += 2) {
                const int lightness = image.pixelColor(x, y).lightness();
                dark += lightness < 90;
                light += lightness > 200;
            }
        const double pixels = image.width() * image.height() / 4.0;
        QVERIFY2(dark / pixels > 0.8, qPrintable(QString::number(dark / pixels)));
        QVERIFY2(light / pixels > 0.003 && light / pixels < 0.1, qPrintable(QString::number(light / pixels)));
    }
};

QTEST_MAIN(TestGuiExport)
#include "TestGuiExport.moc"
