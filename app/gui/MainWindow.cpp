#include "MainWindow.h"

#include "ChartExporter.h"
#include "ComparisonView.h"
#include "ConvergenceView.h"
#include "CostModelView.h"
#include "ErrorReporter.h"
#include "ExplorerView.h"
#include "HardwareView.h"
#include "ParameterImportanceView.h"
#include "RecordsView.h"
#include "SessionLoader.h"
#include "TaskPanel.h"
#include "TimeFormat.h"
#include "TrialDetailsView.h"
#include "WorkloadView.h"

#include "hardware/CpuInfo.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "records/DatasetReader.h"
#include "records/RecordStore.h"
#include "records/SessionResume.h"
#include "session/CudaKernelBackend.h"
#include "session/KernelTuneOptions.h"
#include "session/PreparedSession.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QWindow>
#include <QtConcurrent/QtConcurrentRun>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <utility>

namespace ts::gui {

namespace {

constexpr int kRefreshIntervalMs = 100; // 10 Hz
// A dock narrower or lower than this cannot show a chart or a table; its contents scroll below it instead of
// widening the window.
constexpr int kReadableDockWidth = 240;
constexpr int kReadableDockHeight = 160;
// A column of the side-by-side grid is at least this wide, so tick labels stay readable.
constexpr int kGridColumnWidth = 440;
// Two rows of the grid need this much height each (a view of two charts scrolls in less).
constexpr int kGridRowHeight = 330;

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

    for (auto [name, title, widget] : std::initializer_list<std::tuple<QString, QString, QWidget*>>{
             {"convergence", tr("Convergence"), m_convergence},
             {"costmodel", tr("Cost model"), m_costModel},
             {"importance", tr("Importance"), m_importance},
             {"hardware", tr("Hardware"), m_hardware},
             {"explorer", tr("Explorer"), m_explorer},
             {"comparison", tr("Comparison"), m_comparison},
             {"records", tr("Records"), m_records},
             {"workload", tr("Workload"), m_workload}})
        addViewDock(name, title, widget);
    m_detailsDock = new QDockWidget(tr("Trial details"), this);
    m_detailsDock->setObjectName("dock_details");
    m_detailsDock->setWidget(scrolled(m_details, this));
    m_detailsDock->setMinimumSize(kReadableDockWidth, kReadableDockHeight);
    addDockWidget(Qt::RightDockWidgetArea, m_detailsDock);

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

    connect(m_task, &TaskPanel::openRequested, this, &MainWindow::chooseDatasetFile);
    connect(m_task, &TaskPanel::openSpecRequested, this, &MainWindow::chooseKernelSpecFile);
    connect(m_task, &TaskPanel::kernelChosen, this, [this](const QString& id) { chooseKernel(id); });
    connect(&m_runner, &SessionRunner::started, this, &MainWindow::onSessionStarted);
    connect(&m_runner, &SessionRunner::warmStart, m_statusText, &QLabel::setText);
    connect(&m_runner, &SessionRunner::notice, m_statusText, &QLabel::setText);
    connect(&m_runner, &SessionRunner::restrictionsLearned, &m_data, &RunData::setRestrictions);
    connect(&m_runner, &SessionRunner::finished, this, &MainWindow::onSessionFinished);
    connect(&m_runner, &SessionRunner::pausedChanged, this, [this] {
        updateButtons();
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

    buildActions();
    buildMenus();
    addBundledDatasets();
    addCatalogKernels();
    restoreSettings();
    m_records->setDatabasePath(m_databasePath);
    m_workload->setDatabasePath(m_databasePath);
    updateButtons();
}

MainWindow::~MainWindow() {
    m_runner.cancel();
    m_runner.wait();
    if (m_loader)
        m_loader->waitForFinished();
    // The views refer to RunData and the runner, members that die before QWidget's destructor hides and
    // deletes the children: hide and delete the docks (and the views in them) while the members live.
    hide();
    qDeleteAll(findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly));
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

QToolButton* MainWindow::startButton() const {
    return qobject_cast<QToolButton*>(m_sessionBar->widgetForAction(m_startAction));
}

QToolButton* MainWindow::pauseButton() const {
    return qobject_cast<QToolButton*>(m_sessionBar->widgetForAction(m_pauseAction));
}

QToolButton* MainWindow::resumeButton() const {
    return qobject_cast<QToolButton*>(m_sessionBar->widgetForAction(m_resumeAction));
}

QToolButton* MainWindow::stopButton() const {
    return qobject_cast<QToolButton*>(m_sessionBar->widgetForAction(m_stopAction));
}

// One action each for Start, Pause, Resume and Stop, shared by the Session menu and the toolbar, which stays
// visible whatever the docks do.
void MainWindow::buildActions() {
    m_startAction = new QAction(tr("&Start"), this);
    m_startAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_startAction->setToolTip(tr("Start a session of the task (Ctrl+R)"));
    connect(m_startAction, &QAction::triggered, this, [this] { startSession(); });
    m_pauseAction = new QAction(tr("&Pause"), this);
    m_pauseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_pauseAction->setToolTip(tr("Pause between batches (Ctrl+P)"));
    connect(m_pauseAction, &QAction::triggered, &m_runner, &SessionRunner::pause);
    m_resumeAction = new QAction(tr("Res&ume"), this);
    m_resumeAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_resumeAction->setToolTip(tr("Resume the paused session (Ctrl+Shift+P)"));
    connect(m_resumeAction, &QAction::triggered, &m_runner, &SessionRunner::resume);
    m_stopAction = new QAction(tr("S&top"), this);
    m_stopAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Period), QKeySequence(Qt::Key_Escape)});
    m_stopAction->setToolTip(tr("Stop the session between batches (Ctrl+.)"));
    connect(m_stopAction, &QAction::triggered, &m_runner, &SessionRunner::cancel);
    m_sessionBar = addToolBar(tr("Session"));
    m_sessionBar->setObjectName("toolbar_session");
    m_sessionBar->setMovable(false);
    m_sessionBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_sessionBar->addActions({m_startAction, m_pauseAction, m_resumeAction, m_stopAction});
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open dataset..."), this, &MainWindow::chooseDatasetFile);
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open &kernel spec..."), this, &MainWindow::chooseKernelSpecFile);
    file->addAction(tr("Open records &database..."), this, &MainWindow::chooseDatabaseFile);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* session = menuBar()->addMenu(tr("&Session"));
    session->addActions({m_startAction, m_pauseAction, m_resumeAction, m_stopAction});

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

void MainWindow::addBundledDatasets() {
    QDir dir(TUNESCOPE_RESOURCE_DIR "/datasets");
    for (const QFileInfo& info : dir.entryInfoList({"*.json.gz", "*.json"}, QDir::Files, QDir::Name))
        m_task->addKernel(tr("replay: %1").arg(info.fileName()), info.absoluteFilePath(), false);
}

// Specs of TUNESCOPE_KERNEL_PATH that could not be read are skipped and reported, once the window is up (the
// constructor's caller has then had its chance to make the reporter non-interactive).
void MainWindow::reportSkippedKernelSpecs(const std::vector<std::string>& problems) {
    if (problems.empty())
        return;
    QStringList lines;
    for (const std::string& problem : problems)
        lines << QString::fromStdString(problem);
    const QString message = tr("%n kernel spec(s) could not be read and were skipped: %1", nullptr,
                               static_cast<int>(lines.size()))
                                .arg(lines.join(QStringLiteral("\n")));
    QTimer::singleShot(0, this,
                       [this, message] { m_errors->report(this, tr("Kernel specs skipped"), message); });
}

void MainWindow::addCatalogKernels() {
    try {
        const KernelCatalog catalog;
        for (const KernelSpec& spec : catalog.all())
            if (spec.variant("cpu"))
                m_task->addKernel(tr("kernel: %1").arg(QString::fromStdString(spec.name)),
                                  TaskPanel::catalogKernelId(QString::fromStdString(spec.name)), false);
        reportSkippedKernelSpecs(catalog.problems());
    } catch (const std::exception& e) {
        m_statusText->setText(
            tr("The kernel catalog could not be read: %1").arg(QString::fromUtf8(e.what())));
    }
}

void MainWindow::chooseKernelSpecFile() {
    QString path = QFileDialog::getOpenFileName(this, tr("Open a kernel spec"), QString(),
                                                tr("Kernel specs (kernel.json *.json);;All files (*)"));
    if (!path.isEmpty())
        openKernelSpec(path);
}

bool MainWindow::openKernelSpec(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const QString id = TaskPanel::specKernelId(absolute);
    const QString previous = m_task->kernelPath();
    m_task->addKernel(tr("spec: %1")
                          .arg(QDir(absolute).dirName() == "kernel.json" ? QFileInfo(absolute).dir().dirName()
                                                                         : QFileInfo(absolute).fileName()),
                      id, true);
    if (chooseKernel(id))
        return true;
    m_task->kernelBox()->removeItem(m_task->kernelBox()->findData(id));
    m_task->selectKernel(previous);
    return false;
}

bool MainWindow::chooseKernel(const QString& id) {
    if (!TaskPanel::isRealKernelId(id)) {
        openDataset(id);
        return true;
    }
    if (m_runner.isRunning()) {
        m_task->selectKernel(m_kernelId);
        m_errors->report(this, tr("Cannot change the kernel"), tr("A session is running: stop it first."));
        return false;
    }
    std::shared_ptr<const KernelSpec> spec;
    QStringList backends;
    try {
        KernelTuneOptions options;
        if (id.startsWith("kernel:"))
            options.kernel = id.mid(7).toStdString();
        else
            options.kernelSpec = id.mid(5).toStdString();
        spec = std::make_shared<const KernelSpec>(loadKernelSpec(options));
        if (spec->variant("cpu"))
            backends << "cpu";
        if (spec->variant("cuda") && cudaDeviceAvailable())
            backends << "cuda";
        if (backends.isEmpty())
            throw Error(fmt::format("Kernel {} has no cpu variant, and cuda needs a CUDA device this machine "
                                    "does not have.",
                                    spec->name));
    } catch (const std::exception& e) {
        m_task->selectKernel(m_kernelId);
        m_errors->report(this, tr("Cannot open the kernel"), QString::fromUtf8(e.what()));
        return false;
    }
    m_kernelSpec = spec;
    m_kernelId = id;
    const KernelVariant& variant = *spec->variant(backends.front().toStdString());
    const QString size = QString::fromStdString(formatProblemSize(*spec, spec->defaultSize()));
    const CpuInfo cpu = CpuInfo::query();
    m_task->describeKernel(size, QString::fromStdString(cpu.model.empty() ? "this machine's CPU" : cpu.model),
                           tr("%1 parameters (%2 variant), measured for real")
                               .arg(variant.parameters.size())
                               .arg(backends.front()));
    m_task->setRealKernel(true, size, backends);
    showDevice(backends.front().toStdString(), QString());
    m_statusText->setText(tr("%1: measured for real on the %2 backend")
                              .arg(QString::fromStdString(spec->name), backends.front()));
    return true;
}

void MainWindow::showDevice(const std::string& backend, const QString& device) {
    if (backend == "cpu")
        m_hardware->showCpu();
    else
        m_hardware->setDeviceName(device);
}

void MainWindow::chooseDatasetFile() {
    QString path = QFileDialog::getOpenFileName(this, tr("Open a replay dataset"), QString(),
                                                tr("Datasets (*.json *.json.gz *.csv *.txt);;All files (*)"));
    if (!path.isEmpty())
        openDataset(path);
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

bool MainWindow::isLoading() const {
    return m_loader != nullptr;
}

void MainWindow::openDataset(const QString& path) {
    if (path.isEmpty() || m_loader)
        return;
    m_loadingPath = path;
    m_statusText->setText(tr("Reading %1...").arg(QFileInfo(path).fileName()));
    m_loader = new QFutureWatcher<DatasetLoad>(this);
    connect(m_loader, &QFutureWatcherBase::finished, this, [this] {
        auto* loader = m_loader;
        m_loader = nullptr;
        loader->deleteLater();
        QString path = m_loadingPath;
        DatasetLoad load = loader->result();
        if (load.dataset) {
            datasetReady(path, std::move(load.dataset));
            return;
        }
        m_startWhenLoaded = false;
        m_task->selectKernel(m_kernelId);
        m_statusText->setText(tr("Could not open %1.").arg(QFileInfo(path).fileName()));
        m_errors->report(this, tr("Cannot open dataset"), load.error);
        emit loadFailed(path);
    });
    m_loader->setFuture(QtConcurrent::run([path] {
        DatasetLoad load;
        try {
            load.dataset = std::make_shared<const Dataset>(readDataset(path.toStdString()));
        } catch (const std::exception& e) {
            load.error = QString::fromUtf8(e.what());
        }
        return load;
    }));
}

void MainWindow::datasetReady(const QString& path, std::shared_ptr<const Dataset> dataset) {
    m_dataset = std::move(dataset);
    m_kernelSpec.reset();
    QFileInfo info(path);
    m_kernelId = info.absoluteFilePath();
    m_task->addKernel(tr("replay: %1").arg(info.fileName()), info.absoluteFilePath(), true);
    m_task->setRealKernel(false);
    const Dataset& d = *m_dataset;
    m_task->describeKernel(
        QString::fromStdString(d.problemSize.empty() ? "(recorded)" : d.problemSize),
        QString::fromStdString(d.deviceName.empty() ? "(not named by the file)" : d.deviceName),
        tr("%1 parameters, %2 configs (%3 valid, %4 ok) of %5")
            .arg(d.space.dimension())
            .arg(d.entries.size())
            .arg(d.space.validCount())
            .arg(d.okCount())
            .arg(d.space.productSize()));
    m_hardware->setDeviceName(QString::fromStdString(d.deviceName));
    m_statusText->setText(tr("%1: %2 on %3")
                              .arg(info.fileName(), QString::fromStdString(d.kernelName),
                                   QString::fromStdString(d.deviceName)));
    emit datasetLoaded(path);
    if (std::exchange(m_startWhenLoaded, false))
        startSession();
}

bool MainWindow::startSession() {
    if (m_runner.isRunning())
        return false;
    // The kernel list shows an entry that was never opened (the one restored at launch): open it first; a
    // dataset is read in the background and the session starts once it is read.
    const QString shown = m_task->kernelPath();
    if (!shown.isEmpty() && shown != m_kernelId) {
        if (TaskPanel::isRealKernelId(shown)) {
            if (!chooseKernel(shown))
                return false;
        } else {
            m_startWhenLoaded = true;
            openDataset(shown);
            return false;
        }
    }
    SessionRunner::Request request;
    request.plan = m_task->task();
    const bool kernel = request.plan.measuresKernel();
    request.dataset = kernel ? nullptr : m_dataset;
    if (request.dataset)
        request.plan.dataset = request.dataset->path.string();
    request.databasePath = m_databasePath;
    std::vector<Parameter> parameters;
    try {
        if (kernel && !m_kernelSpec)
            throw Error("No kernel is chosen: pick one of the catalog or open a kernel spec first.");
        if (!kernel && !m_dataset)
            throw Error("No kernel is chosen: open a replay dataset (File > Open) first.");
        if (!m_runner.start(request))
            return false;
        if (kernel)
            parameters = m_kernelSpec->variant(request.plan.backend)->parameters;
        else
            parameters = m_dataset->space.parameters();
    } catch (const std::exception& e) {
        m_errors->report(this, tr("Cannot start the session"), QString::fromUtf8(e.what()));
        return false;
    }
    m_data.reset(runInfo(request.plan), std::move(parameters), request.dataset);
    if (kernel)
        showDevice(request.plan.backend, m_data.info().device);
    m_longestRefreshMs = 0.0;
    m_refreshTimer->start();
    updateButtons();
    updateStatusBar();
    return true;
}

RunData::Info MainWindow::runInfo(const SessionPlan& task) const {
    RunData::Info info;
    info.strategy = QString::fromStdString(task.strategy);
    info.label = tr("%1 seed %2").arg(info.strategy).arg(task.seed);
    info.status = "running";
    info.budget = task.budget;
    if (task.measuresKernel()) {
        info.kernel = QString::fromStdString(m_kernelSpec->name);
        // As the record will store it, so that a reopened run of this size overlays this one.
        try {
            info.problem = QString::fromStdString(
                problemJson(*m_kernelSpec, parseProblemSize(*m_kernelSpec, task.kernel.size)));
        } catch (const Error&) {
            info.problem = QString::fromStdString(task.kernel.size);
        }
        // The device's name, as the records store it, so that the Hardware view finds it in the GPU database.
        const std::string model = task.backend == "cpu" ? CpuInfo::query().model : cudaDeviceName();
        info.device = QString::fromStdString(model.empty() ? task.backend : model);
        return info; // no optimum: the space is not measured in advance
    }
    info.kernel = QString::fromStdString(m_dataset->kernelName);
    info.device = QString::fromStdString(m_dataset->deviceName);
    info.optimum = m_dataset->optimum();
    return info;
}

bool MainWindow::resumeSession(std::int64_t sessionId) {
    if (m_runner.isRunning()) {
        m_errors->report(this, tr("Cannot resume"),
                         tr("A session is running: stop it before resuming another."));
        return false;
    }
    // What the views need before the worker rebuilds the session from its stored plan (core's resume, with
    // every check): the record, and the parameters of its dataset or kernel.
    SessionRunner::Request request;
    SessionRecord record;
    std::vector<Parameter> parameters;
    try {
        RecordStore store(m_databasePath.toStdString(), DatabaseAccess::ReadOnly);
        record = SessionResume::resumable(store, sessionId);
        request.plan = SessionPlan::ofRecord(record);
        PreparedSession::validate(request.plan);
        if (request.plan.measuresKernel()) {
            const KernelSpec spec = loadKernelSpec(request.plan.kernel);
            parameters = spec.variant(request.plan.backend)->parameters;
        } else {
            request.dataset = std::make_shared<const Dataset>(readDataset(request.plan.dataset));
            parameters = request.dataset->space.parameters();
        }
        request.databasePath = m_databasePath;
        request.resumeSession = sessionId;
        if (!m_runner.start(request))
            return false;
    } catch (const std::exception& e) {
        m_errors->report(this, tr("Cannot resume the session"), QString::fromUtf8(e.what()));
        return false;
    }
    loadSessionTrials(record, request.dataset);
    m_data.reset(m_data.info(), std::move(parameters), request.dataset);
    m_data.setStatus("running");
    m_refreshTimer->start();
    updateButtons();
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
    RunData::Info info;
    info.sessionId = r.id;
    info.strategy = QString::fromStdString(r.strategy);
    info.label = tr("#%1 %2 seed %3").arg(r.id).arg(info.strategy).arg(r.seed);
    info.kernel = QString::fromStdString(r.kernel);
    info.problem = QString::fromStdString(r.problem);
    info.device = QString::fromStdString(r.device);
    info.status = QString::fromStdString(r.status);
    info.budget = r.budget;
    if (dataset)
        info.optimum = dataset->optimum();
    std::vector<Parameter> parameters = dataset ? dataset->space.parameters() : std::vector<Parameter>{};
    m_data.reset(info, parameters, dataset);
    showDevice(r.backend, info.device);
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
    updateButtons();
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

void MainWindow::updateButtons() {
    const bool running = m_runner.isRunning();
    m_startAction->setEnabled(!running);
    m_pauseAction->setEnabled(running && !m_runner.isPaused());
    m_resumeAction->setEnabled(running && m_runner.isPaused());
    m_stopAction->setEnabled(running);
}

void MainWindow::tileViews() {
    QList<QDockWidget*> docks;
    for (const QString& name : viewNames())
        docks.push_back(m_docks[name]);
    for (QDockWidget* dock : docks) {
        dock->setFloating(false);
        dock->show();
    }
    fitToScreen();
    const int taskWidth = m_taskDock->isVisible() && !m_taskDock->isFloating() ? m_taskDock->width() : 0;
    const int columns = std::clamp((width() - taskWidth) / kGridColumnWidth, 1, 4);
    const int rows = height() >= 2 * kGridRowHeight ? 2 : 1;
    const int cells = std::min(static_cast<int>(docks.size()), columns * rows);
    addDockWidget(Qt::RightDockWidgetArea, docks[0]);
    for (int c = 1; c < std::min(columns, cells); ++c)
        splitDockWidget(docks[c - 1], docks[c], Qt::Horizontal);
    for (int i = columns; i < cells; ++i)
        splitDockWidget(docks[i - columns], docks[i], Qt::Vertical);
    // The views that do not fit, and the trial details, behind the last one.
    for (int i = cells; i < static_cast<int>(docks.size()); ++i)
        tabifyDockWidget(docks[cells - 1], docks[i]);
    tabifyDockWidget(docks[cells - 1], m_detailsDock);
    docks[cells - 1]->raise();
    QList<QDockWidget*> firstRow = docks.mid(0, std::min(columns, cells));
    resizeDocks(firstRow,
                QList<int>(firstRow.size(), (width() - taskWidth) / static_cast<int>(firstRow.size())),
                Qt::Horizontal);
    fitToScreen();
}

void MainWindow::resetLayout() {
    for (QDockWidget* dock : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
        dock->setFloating(false);
        dock->show();
    }
    addDockWidget(Qt::LeftDockWidgetArea, m_taskDock);
    QDockWidget* first = m_docks["convergence"];
    addDockWidget(Qt::RightDockWidgetArea, first);
    splitDockWidget(first, m_detailsDock, Qt::Horizontal);
    for (const QString& name : viewNames())
        if (m_docks[name] != first)
            tabifyDockWidget(first, m_docks[name]);
    first->raise();
    // 90 % of the screen, centred (a screenshot keeps its size); the views get half the width, the task and
    // the trial details a quarter.
    if (m_keptOnScreen) {
        const QRect area = availableArea();
        const QSize size(area.width() * 9 / 10, area.height() * 9 / 10);
        resize(size.expandedTo(minimumSizeHint()).boundedTo(area.size()));
        move(area.x() + (area.width() - frameGeometry().width()) / 2,
             area.y() + (area.height() - frameGeometry().height()) / 2);
    }
    const int w = width();
    resizeDocks({m_taskDock, first, m_detailsDock},
                {std::max(m_taskDock->minimumWidth(), w / 4), w / 2, w / 4}, Qt::Horizontal);
    fitToScreen();
}

QRect MainWindow::availableArea() const {
    const QScreen* on = screen() ? screen() : QGuiApplication::primaryScreen();
    return on->availableGeometry();
}

void MainWindow::fitToScreen() {
    if (!m_keptOnScreen)
        return;
    const QRect area = availableArea();
    const QRect frame = frameGeometry();
    if (area.contains(frame))
        return;
    const QSize margins = frame.size() - size();
    resize(size().boundedTo(area.size() - margins));
    const QRect fitted = frameGeometry();
    move(std::clamp(fitted.x(), area.left(), std::max(area.left(), area.right() + 1 - fitted.width())),
         std::clamp(fitted.y(), area.top(), std::max(area.top(), area.bottom() + 1 - fitted.height())));
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    fitToScreen();
    // Moved to another screen (or this one changed size): fit it again.
    if (!m_screenWatched && windowHandle()) {
        m_screenWatched = true;
        connect(windowHandle(), &QWindow::screenChanged, this, [this](QScreen* to) {
            if (to)
                connect(to, &QScreen::availableGeometryChanged, this, &MainWindow::fitToScreen,
                        Qt::UniqueConnection);
            QTimer::singleShot(0, this, &MainWindow::fitToScreen);
        });
        if (QScreen* on = windowHandle()->screen())
            connect(on, &QScreen::availableGeometryChanged, this, &MainWindow::fitToScreen,
                    Qt::UniqueConnection);
    }
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
    saveSettings();
    m_runner.cancel();
    m_runner.wait();
    m_workload->runner().cancel();
    m_workload->runner().wait();
    QMainWindow::closeEvent(event);
}

void MainWindow::saveSettings() {
    QSettings settings;
    // A window larger than its screen (it cannot be made so, but a window manager may) is not kept: the next
    // launch starts from the default layout instead.
    if (availableArea().contains(frameGeometry())) {
        settings.setValue("window/geometry", saveGeometry());
        settings.setValue("window/state", saveState());
    } else {
        settings.remove("window/geometry");
        settings.remove("window/state");
    }
    settings.setValue("records/database", m_databasePath);
    m_task->saveSettings(settings);
}

void MainWindow::restoreSettings() {
    QSettings settings;
    // A saved layout comes back fitted to the screen the window is on now; without one (or with one this
    // version cannot read), the default layout.
    if (!restoreGeometry(settings.value("window/geometry").toByteArray()) ||
        !restoreState(settings.value("window/state").toByteArray()))
        resetLayout();
    fitToScreen();
    QString db = settings.value("records/database").toString();
    if (!db.isEmpty())
        m_databasePath = db;
    m_task->restoreSettings(settings);
}

} // namespace ts::gui
