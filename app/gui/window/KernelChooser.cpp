#include "window/KernelChooser.h"

#include "running/SessionRunner.h"
#include "window/ErrorReporter.h"
#include "window/TaskPanel.h"

#include "datasets/DatasetReader.h"
#include "hardware/CpuInfo.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "session/CudaKernelBackend.h"
#include "session/KernelTuneOptions.h"
#include "util/Error.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <fmt/format.h>

namespace ts::gui {

KernelChooser::KernelChooser(TaskPanel& task, ErrorReporter& errors, const SessionRunner& runner,
                             QWidget& window)
    : QObject(&window), m_task(task), m_errors(errors), m_runner(runner), m_window(window) {}

KernelChooser::~KernelChooser() {
    if (m_loader)
        m_loader->waitForFinished();
}

void KernelChooser::addBundledDatasets() {
    QDir dir(TUNESCOPE_RESOURCE_DIR "/datasets");
    for (const QFileInfo& info : dir.entryInfoList({"*.json.gz", "*.json"}, QDir::Files, QDir::Name))
        m_task.addKernel(tr("replay: %1").arg(info.fileName()), info.absoluteFilePath(), false);
}

// Specs of TUNESCOPE_KERNEL_PATH that could not be read are skipped and reported, once the window is up (the
// window's creator has then had its chance to make the reporter non-interactive).
void KernelChooser::reportSkippedKernelSpecs(const std::vector<std::string>& problems) {
    if (problems.empty())
        return;
    QStringList lines;
    for (const std::string& problem : problems)
        lines << QString::fromStdString(problem);
    const QString message = tr("%n kernel spec(s) could not be read and were skipped: %1", nullptr,
                               static_cast<int>(lines.size()))
                                .arg(lines.join(QStringLiteral("\n")));
    QTimer::singleShot(0, this,
                       [this, message] { m_errors.report(&m_window, tr("Kernel specs skipped"), message); });
}

void KernelChooser::addCatalogKernels() {
    try {
        const KernelCatalog catalog;
        for (const KernelSpec& spec : catalog.all())
            if (spec.variant("cpu"))
                m_task.addKernel(tr("kernel: %1").arg(QString::fromStdString(spec.name)),
                                 TaskPanel::catalogKernelId(QString::fromStdString(spec.name)), false);
        reportSkippedKernelSpecs(catalog.problems());
    } catch (const std::exception& e) {
        emit status(tr("The kernel catalog could not be read: %1").arg(QString::fromUtf8(e.what())));
    }
}

void KernelChooser::chooseKernelSpecFile() {
    QString path = QFileDialog::getOpenFileName(&m_window, tr("Open a kernel spec"), QString(),
                                                tr("Kernel specs (kernel.json *.json);;All files (*)"));
    if (!path.isEmpty())
        openKernelSpec(path);
}

void KernelChooser::chooseDatasetFile() {
    QString path = QFileDialog::getOpenFileName(&m_window, tr("Open a replay dataset"), QString(),
                                                tr("Datasets (*.json *.json.gz *.csv *.txt);;All files (*)"));
    if (!path.isEmpty())
        openDataset(path);
}

bool KernelChooser::openKernelSpec(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const QString id = TaskPanel::specKernelId(absolute);
    const QString previous = m_task.kernelPath();
    m_task.addKernel(tr("spec: %1")
                         .arg(QDir(absolute).dirName() == "kernel.json" ? QFileInfo(absolute).dir().dirName()
                                                                        : QFileInfo(absolute).fileName()),
                     id, true);
    if (chooseKernel(id))
        return true;
    m_task.kernelBox()->removeItem(m_task.kernelBox()->findData(id));
    m_task.selectKernel(previous);
    return false;
}

bool KernelChooser::chooseKernel(const QString& id) {
    if (!TaskPanel::isRealKernelId(id)) {
        openDataset(id);
        return true;
    }
    if (m_runner.isRunning()) {
        m_task.selectKernel(m_kernelId);
        m_errors.report(&m_window, tr("Cannot change the kernel"),
                        tr("A session is running: stop it first."));
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
        m_task.selectKernel(m_kernelId);
        m_errors.report(&m_window, tr("Cannot open the kernel"), QString::fromUtf8(e.what()));
        return false;
    }
    m_kernelSpec = spec;
    m_kernelId = id;
    const KernelVariant& variant = *spec->variant(backends.front().toStdString());
    const QString size = QString::fromStdString(formatProblemSize(*spec, spec->defaultSize()));
    const CpuInfo cpu = CpuInfo::query();
    m_task.describeKernel(size, QString::fromStdString(cpu.model.empty() ? "this machine's CPU" : cpu.model),
                          tr("%1 parameters (%2 variant), measured for real")
                              .arg(variant.parameters.size())
                              .arg(backends.front()));
    m_task.setRealKernel(true, size, backends);
    emit deviceChosen(backends.front(), QString());
    emit status(tr("%1: measured for real on the %2 backend")
                    .arg(QString::fromStdString(spec->name), backends.front()));
    return true;
}

void KernelChooser::openDataset(const QString& path) {
    if (path.isEmpty() || m_loader)
        return;
    m_loadingPath = path;
    emit status(tr("Reading %1...").arg(QFileInfo(path).fileName()));
    m_loader = new QFutureWatcher<DatasetLoad>(this);
    connect(m_loader, &QFutureWatcherBase::finished, this, &KernelChooser::loadDone);
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

void KernelChooser::loadDone() {
    auto* loader = m_loader;
    m_loader = nullptr;
    loader->deleteLater();
    const QString path = m_loadingPath;
    DatasetLoad load = loader->result();
    if (load.dataset) {
        datasetReady(path, std::move(load.dataset));
        return;
    }
    m_task.selectKernel(m_kernelId);
    emit status(tr("Could not open %1.").arg(QFileInfo(path).fileName()));
    m_errors.report(&m_window, tr("Cannot open dataset"), load.error);
    emit loadFailed(path);
}

void KernelChooser::datasetReady(const QString& path, std::shared_ptr<const Dataset> dataset) {
    m_dataset = std::move(dataset);
    m_kernelSpec.reset();
    QFileInfo info(path);
    m_kernelId = info.absoluteFilePath();
    m_task.addKernel(tr("replay: %1").arg(info.fileName()), info.absoluteFilePath(), true);
    m_task.setRealKernel(false);
    const Dataset& d = *m_dataset;
    m_task.describeKernel(
        QString::fromStdString(d.problemSize.empty() ? "(recorded)" : d.problemSize),
        QString::fromStdString(d.deviceName.empty() ? "(not named by the file)" : d.deviceName),
        tr("%1 parameters, %2 configs (%3 valid, %4 ok) of %5")
            .arg(d.space.dimension())
            .arg(d.entries.size())
            .arg(d.space.validCount())
            .arg(d.okCount())
            .arg(d.space.productSize()));
    emit deviceChosen("replay", QString::fromStdString(d.deviceName));
    emit status(tr("%1: %2 on %3")
                    .arg(info.fileName(), QString::fromStdString(d.kernelName),
                         QString::fromStdString(d.deviceName)));
    emit datasetLoaded(path);
}

} // namespace ts::gui
