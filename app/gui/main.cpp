#include "window/AppPalette.h"
#include "window/MainWindow.h"
#include "window/ScreenshotDriver.h"
#include "window/TaskPanel.h"
#include "session/CudaKernelBackend.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("Tunescope");
    QApplication::setApplicationName("tunescope");
    QApplication::setApplicationVersion(TUNESCOPE_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("Tunescope: a workbench for auto-tuning compute kernels.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption(
        {"demo", "Open the bundled replay dataset (RTX 3090 CLBlast GEMM) and start a session."});
    parser.addOption(
        {"dataset", "Open this replay dataset (and start a session with --demo/--screenshot).", "FILE"});
    parser.addOption(
        {"screenshot", "Save a PNG of the main window and exit (starts the demo session).", "FILE"});
    parser.addOption(
        {"after", "Take the screenshot after N evaluations (default: when the session ends).", "N"});
    parser.addOption({"view",
                      "View in front for the screenshot: convergence, costmodel, importance, hardware, "
                      "explorer, comparison, records, workload, or all (side by side).",
                      "NAME"});
    parser.addOption(
        {"kernel", "Measure this catalog kernel for real in a session (instead of a dataset).", "NAME"});
    parser.addOption(
        {"backend", "Backend of --kernel: cpu or cuda (default: cuda where a GPU is, else cpu).", "NAME"});
    parser.addOption(
        {"kernel-size", "Problem size of --kernel, e.g. 4096,4096,4096 (default: its own).", "SIZES"});
    parser.addOption({"db", "Records database (default: $XDG_DATA_HOME/tunescope/records.db).", "FILE"});
    parser.addOption({"strategy", "Strategy for the demo session.", "NAME"});
    parser.addOption({"budget", "Budget for the demo session.", "N"});
    parser.addOption({"size", "Window size for screenshots, WxH (default 1600x1000).", "WxH"});
    parser.addOption(
        {"palette", "Colours: dark or light (Fusion's), or system (the desktop's, the default).", "NAME"});
    parser.process(app);

    const QString palette = parser.isSet("palette") ? parser.value("palette") : "system";
    const std::optional<ts::gui::PaletteMode> mode = ts::gui::parsePaletteMode(palette);
    if (!mode) {
        std::fprintf(stderr, "tunescope: --palette \"%s\" is not a palette (use %s).\n", qPrintable(palette),
                     qPrintable(ts::gui::paletteModeNames()));
        return 1;
    }
    ts::gui::applyPaletteMode(*mode); // before the window, so every widget starts in these colours

    ts::gui::MainWindow window;
    if (parser.isSet("db"))
        window.setDatabasePath(parser.value("db"));
    const bool kernel = parser.isSet("kernel");
    bool drive = parser.isSet("demo") || parser.isSet("screenshot") || kernel;
    QString dataset = parser.value("dataset");
    if (kernel && !dataset.isEmpty()) {
        std::fprintf(stderr, "tunescope: --kernel and --dataset name two things to tune; give one.\n");
        return 1;
    }
    if (dataset.isEmpty() && drive && !kernel)
        dataset = TUNESCOPE_RESOURCE_DIR "/datasets/gemm_clblast_RTX_3090.json.gz";
    if (drive) {
        ts::SessionPlan task = window.taskPanel()->task();
        task.strategy = parser.isSet("strategy") ? parser.value("strategy").toStdString() : "default";
        task.budget = parser.isSet("budget") ? parser.value("budget").toLongLong() : 200;
        task.mode = kernel ? ts::SpaceMode::Constrained : ts::SpaceMode::Product;
        task.options.clear();
        window.taskPanel()->setTask(task);
    }
    if (parser.isSet("screenshot")) {
        // A picture of the size asked for, whatever the screen (an offscreen one is 800x800).
        window.setKeptOnScreen(false);
        QStringList size = parser.value("size").split('x');
        if (size.size() == 2)
            window.resize(size[0].toInt(), size[1].toInt());
        else
            window.resize(1600, 1000);
        window.resetLayout(); // the default layout, not the one saved by the last run
    }
    window.show();

    if (!drive) {
        if (!dataset.isEmpty())
            window.openDataset(dataset);
        return QApplication::exec();
    }
    const QString backend =
        parser.isSet("backend") ? parser.value("backend") : (ts::cudaDeviceAvailable() ? "cuda" : "cpu");
    ts::gui::ScreenshotDriver driver(window, {dataset, parser.value("screenshot"),
                                              parser.value("after").toInt(), parser.value("view"),
                                              parser.value("kernel"), backend, parser.value("kernel-size")});
    QObject::connect(&driver, &ts::gui::ScreenshotDriver::done, &app,
                     [](int code) { QApplication::exit(code); });
    QTimer::singleShot(0, &driver, &ts::gui::ScreenshotDriver::start);
    return QApplication::exec();
}
