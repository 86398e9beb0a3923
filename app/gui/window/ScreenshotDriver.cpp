#include "window/ScreenshotDriver.h"

#include "views/ComparisonView.h"
#include "window/ErrorReporter.h"
#include "views/HardwareView.h"
#include "window/MainWindow.h"
#include "window/TaskPanel.h"
#include "views/WorkloadView.h"

#include <QApplication>
#include <QDeadlineTimer>
#include <QFileInfo>
#include <QPixmap>
#include <QTimer>
#include <cstdio>

namespace ts::gui {

ScreenshotDriver::ScreenshotDriver(MainWindow& window, Options options, QObject* parent)
    : QObject(parent), m_window(window), m_options(std::move(options)) {}

void ScreenshotDriver::start() {
    if (!m_options.view.isEmpty() && m_options.view != "all" &&
        !MainWindow::viewNames().contains(m_options.view)) {
        fail(QString("--view \"%1\" is not a view (use %2 or all).")
                 .arg(m_options.view, MainWindow::viewNames().join(", ")));
        return;
    }
    m_window.errors().setInteractive(m_options.screenshot.isEmpty());
    connect(&m_window.errors(), &ErrorReporter::reported, this,
            [this](const QString&, const QString& message) { fail(message); });
    connect(&m_window, &MainWindow::datasetLoaded, this, [this] {
        if (!m_window.startSession())
            fail("The demo session did not start.");
    });
    if (!m_options.screenshot.isEmpty()) {
        connect(&m_window, &MainWindow::refreshed, this, &ScreenshotDriver::onRefreshed);
        connect(&m_window, &MainWindow::sessionEnded, this, [this] { onRefreshed(-1); });
    }
    if (m_options.kernel.isEmpty()) {
        m_window.openDataset(m_options.dataset);
        return;
    }
    const QString id = TaskPanel::catalogKernelId(m_options.kernel);
    m_window.taskPanel()->selectKernel(id); // as a click in the kernel list would
    if (!m_window.chooseKernel(id))
        return; // the reason went through the error reporter
    SessionPlan task = m_window.taskPanel()->task();
    task.backend = m_options.backend.toStdString();
    if (!m_options.kernelSize.isEmpty())
        task.kernel.size = m_options.kernelSize.toStdString();
    m_window.taskPanel()->setTask(task);
    if (m_window.taskPanel()->task().backend != task.backend) {
        fail(QString("Kernel %1 cannot be measured on the %2 backend on this machine.")
                 .arg(m_options.kernel, m_options.backend));
        return;
    }
    if (!m_window.startSession())
        fail("The session did not start.");
}

void ScreenshotDriver::onRefreshed(int evaluations) {
    bool ended = evaluations < 0;
    if (m_shot || (!ended && (m_options.after <= 0 || evaluations < m_options.after)))
        return;
    m_shot = true;
    // Leave the refresh signal's stack first; the shot is taken from the event loop.
    QTimer::singleShot(0, this, &ScreenshotDriver::shoot);
}

void ScreenshotDriver::shoot() {
    // The comparison view shows a comparison: run a small one first (bundled pnpoly space, three strategies).
    ComparisonView* comparison = m_window.comparisonView();
    if (m_options.view == "comparison" && comparison->outcome().result.runs.empty()) {
        m_window.runner().pause();
        comparison->configure({TUNESCOPE_RESOURCE_DIR "/datasets/pnpoly_RTX_3090.json.gz"},
                              {"random_sample", "simulated_annealing", "xgb"}, 5, "25,50,100");
        connect(comparison, &ComparisonView::finished, this, &ScreenshotDriver::shoot, Qt::QueuedConnection);
        if (!comparison->start())
            fail("The comparison for the screenshot did not start.");
        return;
    }
    // The workload view shows a workload: the demo replay workload under two schedulers, overlaid.
    WorkloadView* workload = m_window.workloadView();
    if (m_options.view == "workload" && workload->runCount() < 2 && !workload->runner().isRunning()) {
        m_window.runner().pause();
        workload->configure(workload->runCount() == 0 ? "round_robin" : "gradient", 150, 1);
        if (workload->runCount() == 0)
            connect(workload, &WorkloadView::finished, this, &ScreenshotDriver::shoot, Qt::QueuedConnection);
        if (!workload->start())
            fail("The workload for the screenshot did not start.");
        return;
    }
    if (m_options.view == "all")
        m_window.tileViews();
    else if (!m_options.view.isEmpty())
        m_window.showView(m_options.view);
    if (m_options.after > 0)
        m_window.runner().pause(); // a steady picture; the session is cancelled on exit
    QApplication::processEvents();
    m_window.refreshNow(true);
    // Show a trial's details (and its place in every view): the best one.
    if (auto best = m_window.runData().bestRow())
        m_window.runData().select(static_cast<int>(*best));
    QApplication::processEvents();
    // The Hardware view compiles the selected config on a worker thread: picture its result, not
    // "Analysing..." (bounded: a compile that does not end in a minute is pictured as it is).
    QDeadlineTimer deadline(60000);
    while (m_window.hardwareView()->isAnalysing() && !deadline.hasExpired())
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    m_window.refreshNow(true);
    QApplication::processEvents();
    QPixmap pixmap = m_window.grab();
    if (pixmap.isNull() || !pixmap.save(m_options.screenshot, "PNG")) {
        fail(QString("Cannot write the screenshot %1.").arg(m_options.screenshot));
        return;
    }
    std::fprintf(stderr, "saved %s (%dx%d, %zu evaluations)\n", qPrintable(m_options.screenshot),
                 pixmap.width(), pixmap.height(), m_window.runData().trials().size());
    emit done(0);
}

void ScreenshotDriver::fail(const QString& message) {
    std::fprintf(stderr, "tunescope: %s\n", qPrintable(message));
    if (!m_options.screenshot.isEmpty())
        emit done(1);
}

} // namespace ts::gui
