#pragma once

#include "datasets/Dataset.h"
#include "kernels/KernelSpec.h"

#include <QObject>
#include <QString>
#include <memory>
#include <string>
#include <vector>

class QWidget;
template <typename T> class QFutureWatcher;

namespace ts::gui {

class ErrorReporter;
class SessionRunner;
class TaskPanel;

// The task panel's kernel list and what its entries open: the bundled replay datasets and the catalog's
// kernels with a cpu variant are listed; a dataset is read on the thread pool (one at a time) and becomes the
// task's kernel once read; a real kernel's spec is read at once and offers its size and backends. A failure
// is one error naming the input, and the list goes back to the entry chosen before. UI thread only.
class KernelChooser : public QObject {
    Q_OBJECT
public:
    // `window` parents the file dialogs and error dialogs.
    KernelChooser(TaskPanel& task, ErrorReporter& errors, const SessionRunner& runner, QWidget& window);
    ~KernelChooser() override;

    void addBundledDatasets();
    void addCatalogKernels();

    // See MainWindow::openDataset, chooseKernel and openKernelSpec.
    void openDataset(const QString& path);
    bool isLoading() const { return m_loader != nullptr; }
    bool chooseKernel(const QString& id);
    bool openKernelSpec(const QString& path);
    void chooseDatasetFile();
    void chooseKernelSpecFile();

    const std::shared_ptr<const Dataset>& dataset() const { return m_dataset; }
    const std::shared_ptr<const KernelSpec>& kernelSpec() const { return m_kernelSpec; }
    // The kernel list entry opened last (the one a session runs).
    const QString& kernelId() const { return m_kernelId; }

signals:
    void datasetLoaded(const QString& path);
    void loadFailed(const QString& path);
    // What the window is doing or has done, for its status line.
    void status(const QString& text);
    // The chosen kernel runs on this device: "cpu" for this machine's CPU, else the named device.
    void deviceChosen(const QString& backend, const QString& device);

private:
    struct DatasetLoad {
        std::shared_ptr<const Dataset> dataset;
        QString error; // one sentence naming the file, when reading failed
    };

    void loadDone();
    void datasetReady(const QString& path, std::shared_ptr<const Dataset> dataset);
    void reportSkippedKernelSpecs(const std::vector<std::string>& problems);

    TaskPanel& m_task;
    ErrorReporter& m_errors;
    const SessionRunner& m_runner;
    QWidget& m_window;
    std::shared_ptr<const Dataset> m_dataset;
    std::shared_ptr<const KernelSpec> m_kernelSpec; // the chosen real kernel; null for a replay dataset
    QString m_kernelId;
    QFutureWatcher<DatasetLoad>* m_loader = nullptr;
    QString m_loadingPath;
};

} // namespace ts::gui
