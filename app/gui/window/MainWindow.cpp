#include "window/MainWindow.h"

#include "charts/ChartExporter.h"
#include "running/SessionLoader.h"
#include "views/ComparisonView.h"
#include "views/ConvergenceView.h"
#include "views/CostModelView.h"
#include "views/ExplorerView.h"
#include "views/HardwareView.h"
#include "views/ParameterImportanceView.h"
#include "views/RecordsView.h"
#include "views/TrialDetailsView.h"
#include "views/WorkloadView.h"
#include "window/ErrorReporter.h"
#include "window/KernelChooser.h"
#include "window/SessionActions.h"
#include "window/SessionSetup.h"
#include "window/TaskPanel.h"
#include "window/TimeFormat.h"
#include "window/WindowLayout.h"
#include "window/WindowSettings.h"
#if TUNESCOPE_WITH_ONNX
#include "window/WorkloadFromModel.h"
#endif

#include "store/RecordStore.h"

#include <QAction>
#include <QApplication>
#include <QChildEvent>
#include <QCloseEvent>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTabBar>
#include <QTimer>
#include <QToolBar>
#include <utility>

namespace ts::gui {

namespace {

constexpr int kRefreshIntervalMs = 100; // 10 Hz
// A dock narrower or lower than this cannot show a chart or a table; its contents scroll below it instead of
// widening the window.
constexpr int kReadableDockWidth = 240;
constexpr int kReadableDockHeight = 160;

// A view in a dock: it scrolls when the dock is smaller than the view's minimum size, so no view widens or
// heightens the window beyond the screen.
QScrollArea* scrolled(QWidget* view, QWidget* parent) {
    auto* area = new QScrollArea(parent);
    area->setWidget(view);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}

} // namespace

QStringList MainWindow::viewNames() {
    return {"convergence", "costmodel",  "importance", "hardware",
            "explorer",    "comparison", "records",    "workload"};
}

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_errors(std::make_unique<ErrorReporter>()),
      m_databasePath(QString::fromStdString(RecordStore::defaultPath().string())) {
    setWindowTitle(tr("Tunescope"));
    setObjectName("TunescopeMainWindow");
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
    // The views are docks; the central widget is an empty placeholder, hidden so that the dock areas meet and
    // the separators between them move (a visible one of size 0 would take none of the space they give up).
    auto* placeholder = new QWidget(this);
    setCentralWidget(placeholder);
    placeholder->hide();

    m_task = new TaskPanel(this);
    m_kernels = new KernelChooser(*m_task, *m_errors, m_runner, *this);
    // The task panel scrolls down, never sideways: its dock is as wide as the panel's labels and fields.
    QScrollArea* taskScroll = scrolled(m_task, this);
    taskScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_taskDock = new QDockWidget(tr("Task"), this);
    m_taskDock->setObjectName("dock_task");
    m_taskDock->setWidget(taskScroll);
    m_taskDock->setMinimumWidth(m_task->minimumSizeHint().width() +
                                taskScroll->verticalScrollBar()->sizeHint().width() + 4);
    addDockWidget(Qt::LeftDockWidgetArea, m_taskDock);

    m_convergence = new ConvergenceView(m_data, this);
    m_costModel = new CostModelView(m_data, this);
    m_hardware = new HardwareView(m_data, this);
    m_explorer = new ExplorerView(m_data, this);
    m_comparison = new ComparisonView(*m_errors, this);
    m_records = new RecordsView(*m_errors, this);
    m_workload = new WorkloadView(*m_errors, this);
    m_details = new TrialDetailsView(m_data, this);
    m_importance = new ParameterImportanceView(m_data, this);
    m_runViews = {m_convergence, m_costModel, m_hardware, m_explorer, m_details, m_importance};
    m_importance->setMinimumInterval(1000); // at most one model fit started a second while a run streams
    m_costModel->setMinimumInterval(250);
    m_explorer->setMinimumInterval(500);

    // Short, distinct titles: the views' tabs share the width of one dock, and a tab never elides its title.
    for (auto [name, title, widget] : std::initializer_list<std::tuple<QString, QString, QWidget*>>{
             {"convergence", tr("Progress"), m_convergence},
             {"costmodel", tr("Model"), m_costModel},
             {"importance", tr("Impact"), m_importance},
             {"hardware", tr("Device"), m_hardware},
             {"explorer", tr("Trials"), m_explorer},
             {"comparison", tr("Compare"), m_comparison},
             {"records", tr("Records"), m_records},
             {"workload", tr("Workload"), m_workload}})
        addViewDock(name, title, widget);
    m_detailsDock = new QDockWidget(tr("Trial details"), this);
    m_detailsDock->setObjectName("dock_details");
    m_detailsDock->setWidget(scrolled(m_details, this));
    m_detailsDock->setMinimumSize(kReadableDockWidth, kReadableDockHeight);
    addDockWidget(Qt::RightDockWidgetArea, m_detailsDock);
    QList<QDockWidget*> viewDocks;
    for (const QString& name : viewNames())
        viewDocks.push_back(m_docks[name]);
    m_layout = new WindowLayout(*this, m_taskDock, m_detailsDock, viewDocks);

    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(260);
    m_progress->setFormat("%v / %m");
    m_statusText = new QLabel(tr("Pick a kernel to measure or a replay dataset to start."), this);
    m_etaText = new QLabel(this);
    statusBar()->addWidget(m_statusText, 1);
    statusBar()->addPermanentWidget(m_etaText);
    statusBar()->addPermanentWidget(m_progress);

    m_refreshTimer = new QTimer(this);
    m_refreshTimer->setInterval(kRefreshIntervalMs);
    connect(m_refreshTimer, &QTimer::timeout, this, [this] { refreshNow(); });

    m_actions = new SessionActions(*this, m_runner, [this] { startSession(); });
    connectParts();
    buildMenus();
    m_kernels->addBundledDatasets();
    m_kernels->addCatalogKernels();
    restoreSettings();
    m_records->setDatabasePath(m_databasePath);
    m_workload->setDatabasePath(m_databasePath);
    m_actions->update();
}

MainWindow::~MainWindow() {
    m_runner.cancel();
    m_runner.wait();
    // The views refer to RunData and the runner, members that die before QWidget's destructor hides and
    // deletes the children: hide and delete the docks (and the views in them) while the members live.
    hide();
    qDeleteAll(findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly));
}

void MainWindow::connectParts() {
    connect(m_task, &TaskPanel::openRequested, m_kernels, &KernelChooser::chooseDatasetFile);
    connect(m_task, &TaskPanel::openSpecRequested, m_kernels, &KernelChooser::chooseKernelSpecFile);
    connect(m_task, &TaskPanel::kernelChosen, this, [this](const QString& id) { chooseKernel(id); });
    connect(m_kernels, &KernelChooser::status, m_statusText, &QLabel::setText);
    connect(m_kernels, &KernelChooser::deviceChosen, this, &MainWindow::showDevice);
    connect(m_kernels, &KernelChooser::datasetLoaded, this, [this](const QString& path) {
        emit datasetLoaded(path);
        if (std::exchange(m_startWhenLoaded, false))
            startSession();
    });
    connect(m_kernels, &KernelChooser::loadFailed, this, [this](const QString& path) {
        m_startWhenLoaded = false;
        emit loadFailed(path);
    });
    connect(&m_runner, &SessionRunner::started, this, &MainWindow::onSessionStarted);
    connect(&m_runner, &SessionRunner::warmStart, m_statusText, &QLabel::setText);
    connect(&m_runner, &SessionRunner::warmStart, m_task, &TaskPanel::addWarmStart);
    connect(&m_runner, &SessionRunner::notice, m_statusText, &QLabel::setText);
    connect(&m_runner, &SessionRunner::restrictionsLearned, &m_data, &RunData::setRestrictions);
    connect(&m_runner, &SessionRunner::finished, this, &MainWindow::onSessionFinished);
    connect(&m_runner, &SessionRunner::pausedChanged, this, [this] {
        m_actions->update();
        updateStatusBar();
    });
    connect(m_records, &RecordsView::openRequested, this, &MainWindow::openSession);
    connect(m_records, &RecordsView::resumeRequested, this, [this](qint64 id) { resumeSession(id); });
    connect(m_records, &RecordsView::exported, m_statusText, &QLabel::setText);
    ChartExporter::instance().setErrorReporter(m_errors.get());
    connect(&ChartExporter::instance(), &ChartExporter::exported, m_statusText,
            [this](const QString&, const QString& message) { m_statusText->setText(message); });
    // A workload's task shows its session (stored trials, even while the workload tunes it) in every view.
    connect(m_workload, &WorkloadView::taskSelected, this, &MainWindow::openSession);
    connect(m_workload, &WorkloadView::started, m_records, &RecordsView::reload);
    connect(m_workload, &WorkloadView::finished, m_records, &RecordsView::reload);
    connect(&m_data, &RunData::selectionChanged, this, [this](int row) {
        if (row >= 0 && !m_detailsDock->isVisible())
            m_detailsDock->show();
    });
}

QDockWidget* MainWindow::addViewDock(const QString& name, const QString& title, QWidget* widget) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName("dock_" + name);
    dock->setWidget(scrolled(widget, this));
    dock->setMinimumSize(kReadableDockWidth, kReadableDockHeight);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    m_docks[name] = dock;
    return dock;
}

QWidget* MainWindow::view(const QString& name) const {
    auto it = m_docks.find(name);
    return it == m_docks.end() ? nullptr : static_cast<QScrollArea*>(it->second->widget())->widget();
}

QString MainWindow::statusText() const {
    return m_statusText->text();
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open dataset..."), m_kernels, &KernelChooser::chooseDatasetFile);
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open &kernel spec..."), m_kernels, &KernelChooser::chooseKernelSpecFile);
    file->addAction(tr("Open records &database..."), this, &MainWindow::chooseDatabaseFile);
#if TUNESCOPE_WITH_ONNX
    m_fromModel = new WorkloadFromModel(*this, *m_errors, *m_workload);
    connect(m_fromModel, &WorkloadFromModel::created, this, [this] { showView("workload"); });
    file->addAction(tr("New &workload from model..."), m_fromModel, &WorkloadFromModel::choose);
#endif
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* session = menuBar()->addMenu(tr("&Session"));
    session->addActions(m_actions->actions());

    QMenu* views = menuBar()->addMenu(tr("&View"));
    views->addAction(m_taskDock->toggleViewAction());
    for (const QString& name : viewNames())
        views->addAction(m_docks[name]->toggleViewAction());
    views->addAction(m_detailsDock->toggleViewAction());
    views->addSeparator();
    views->addAction(tr("Show all views side by side"), this, &MainWindow::tileViews);
    views->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Tunescope"), this, [this] {
        QMessageBox::about(this, tr("About Tunescope"),
                           tr("Tunescope %1: a workbench for auto-tuning compute kernels. GPL-3.0-or-later.")
                               .arg(TUNESCOPE_VERSION));
    });
}

void MainWindow::showDevice(const QString& backend, const QString& device) {
    if (backend == "cpu")
        m_hardware->showCpu();
    else
        m_hardware->setDeviceName(device);
}

void MainWindow::chooseDatabaseFile() {
    QString path = QFileDialog::getSaveFileName(this, tr("Open or create a records database"), m_databasePath,
                                                tr("SQLite databases (*.db *.sqlite);;All files (*)"),
                                                nullptr, QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty())
        setDatabasePath(path);
}

void MainWindow::setDatabasePath(const QString& path) {
    m_databasePath = path;
    m_records->setDatabasePath(path);
    m_workload->setDatabasePath(path);
}

bool MainWindow::startSession() {
    if (m_runner.isRunning())
        return false;
    // The kernel list shows an entry that was never opened (the one restored at launch): open it first; a
    // dataset is read in the background and the session starts once it is read.
    const QString shown = m_task->kernelPath();
    if (!shown.isEmpty() && shown != m_kernels->kernelId()) {
        if (TaskPanel::isRealKernelId(shown)) {
            if (!chooseKernel(shown))
                return false;
        } else {
            m_startWhenLoaded = true;
            openDataset(shown);
            return false;
        }
    }
    const KernelSpec* spec = m_kernels->kernelSpec().get();
    SessionRunner::Request request;
    std::vector<Parameter> parameters;
    try {
        request = SessionSetup::start(m_task->task(), m_kernels->dataset(), spec, m_databasePath);
        m_task->clearWarmStart();
        if (!m_runner.start(request))
            return false;
        parameters = SessionSetup::parameters(request.plan, request.dataset.get(), spec);
    } catch (const std::exception& e) {
        m_errors->report(this, tr("Cannot start the session"), QString::fromUtf8(e.what()));
        return false;
    }
    m_data.reset(SessionSetup::startInfo(request.plan, request.dataset.get(), spec), std::move(parameters),
                 request.dataset);
    if (request.plan.measuresKernel())
        showDevice(QString::fromStdString(request.plan.backend), m_data.info().device);
    m_longestRefreshMs = 0.0;
    m_refreshTimer->start();
    m_actions->update();
    updateStatusBar();
    return true;
}

bool MainWindow::resumeSession(std::int64_t sessionId) {
    if (m_runner.isRunning()) {
        m_errors->report(this, tr("Cannot resume"),
                         tr("A session is running: stop it before resuming another."));
        return false;
    }
    // What the views need before the worker rebuilds the session from its stored plan (core's resume, with
    // every check): the record, and the parameters of its dataset or kernel.
    SessionSetup::Resume resume;
    try {
        resume = SessionSetup::resume(m_databasePath, sessionId);
        m_task->clearWarmStart();
        if (!m_runner.start(resume.request))
            return false;
    } catch (const std::exception& e) {
        m_errors->report(this, tr("Cannot resume the session"), QString::fromUtf8(e.what()));
        return false;
    }
    loadSessionTrials(resume.record, resume.request.dataset);
    m_data.reset(m_data.info(), std::move(resume.parameters), resume.request.dataset);
    m_data.setStatus("running");
    m_refreshTimer->start();
    m_actions->update();
    return true;
}

void MainWindow::openSession(std::int64_t sessionId) {
    if (m_runner.isRunning()) {
        m_errors->report(this, tr("Cannot open the session"),
                         tr("A session is running: stop it before opening a past one."));
        return;
    }
    try {
        LoadedSession loaded = loadSession(m_databasePath, sessionId);
        loadSessionTrials(loaded.record, loaded.dataset);
        if (!loaded.dataset) {
            RunData::Info info = m_data.info();
            m_data.reset(info, loaded.parameters, nullptr);
        }
        m_data.append(std::move(loaded.trials));
        m_data.setRestrictions(loaded.restrictions);
        m_data.setStatus(QString::fromStdString(loaded.record.status));
        if (!loaded.datasetProblem.isEmpty())
            m_statusText->setText(
                tr("Session %1 opened without its dataset: %2").arg(sessionId).arg(loaded.datasetProblem));
        else
            m_statusText->setText(
                tr("Session %1 opened: %2 trials.").arg(sessionId).arg(m_data.trials().size()));
        refreshNow();
    } catch (const std::exception& e) {
        m_errors->report(this, tr("Cannot open the session"), QString::fromUtf8(e.what()));
    }
}

void MainWindow::loadSessionTrials(const SessionRecord& r, std::shared_ptr<const Dataset> dataset) {
    const RunData::Info info = SessionSetup::recordInfo(r, dataset.get());
    std::vector<Parameter> parameters = dataset ? dataset->space.parameters() : std::vector<Parameter>{};
    m_data.reset(info, parameters, dataset);
    showDevice(QString::fromStdString(r.backend), info.device);
}

void MainWindow::onSessionStarted(qint64 sessionId) {
    m_data.setSessionId(sessionId);
    m_statusText->setText(
        tr("Session %1 running: %2 on %3.").arg(sessionId).arg(m_data.info().kernel, m_data.info().device));
    m_records->reload();
    emit sessionStarted(sessionId);
}

void MainWindow::onSessionFinished(const QString& status, const QString& reason, const QString& error) {
    refreshNow();
    m_refreshTimer->stop();
    m_data.setStatus(status);
    m_actions->update();
    updateStatusBar();
    m_statusText->setText(tr("Session %1 %2 (%3): %4 evaluations.")
                              .arg(m_data.info().sessionId)
                              .arg(status, reason)
                              .arg(m_data.trials().size()));
    m_records->reload();
    if (!error.isEmpty())
        m_errors->report(this, tr("The session failed"), error);
    emit sessionEnded(status);
}

void MainWindow::refreshNow(bool force) {
    QElapsedTimer timer;
    timer.start();
    if (SessionBridge* bridge = m_runner.bridge()) {
        std::vector<Trial> trials = bridge->takeTrials();
        if (!trials.empty())
            m_data.append(std::move(trials));
    }
    for (RunView* view : m_runViews)
        view->refreshIfNeeded(force);
    updateStatusBar();
    m_longestRefreshMs = std::max(m_longestRefreshMs, static_cast<double>(timer.nsecsElapsed()) / 1e6);
    emit refreshed(static_cast<int>(m_data.trials().size()));
}

void MainWindow::updateStatusBar() {
    auto evaluations = static_cast<int>(m_data.trials().size());
    auto budget = static_cast<int>(m_data.info().budget);
    m_progress->setRange(0, std::max(1, budget));
    m_progress->setValue(std::min(evaluations, std::max(1, budget)));
    std::optional<SessionProgress> progress;
    if (m_runner.isRunning() && m_runner.bridge())
        progress = m_runner.bridge()->lastProgress();
    QString text;
    if (auto row = m_data.bestRow())
        text = tr("best %1").arg(formatMs(m_data.trials()[*row].measurement.objective));
    if (m_runner.isRunning() && progress) {
        text += tr(", %1 elapsed").arg(formatDuration(progress->elapsedS));
        if (m_runner.isPaused())
            text += tr(", paused");
        else if (progress->etaS)
            text += tr(", ETA %1").arg(formatDuration(*progress->etaS));
    }
    m_etaText->setText(text);
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    m_layout->fitToScreen();
    m_layout->watchScreen();
}

// The docks' tab bars (made by the layout when docks are tabbed, then polished once) show whole titles: a
// bar too narrow for them scrolls instead of eliding every title to a few letters.
void MainWindow::childEvent(QChildEvent* event) {
    QMainWindow::childEvent(event);
    if (event->polished())
        if (auto* bar = qobject_cast<QTabBar*>(event->child()))
            bar->setElideMode(Qt::ElideNone);
}

bool MainWindow::showView(const QString& name) {
    auto it = m_docks.find(name);
    if (it == m_docks.end())
        return false;
    it->second->show();
    it->second->raise();
    QApplication::processEvents();
    return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    WindowSettings::save(*this, m_layout->availableArea(), m_databasePath, *m_task);
    m_runner.cancel();
    m_runner.wait();
    m_workload->runner().cancel();
    m_workload->runner().wait();
    QMainWindow::closeEvent(event);
}

// A saved layout comes back fitted to the screen the window is on now; without one (or with one this version
// cannot read), the default layout.
void MainWindow::restoreSettings() {
    if (!WindowSettings::restoreLayout(*this))
        resetLayout();
    m_layout->fitToScreen();
    const QString db = WindowSettings::database();
    if (!db.isEmpty())
        m_databasePath = db;
    WindowSettings::restoreTask(*m_task);
}

} // namespace ts::gui
