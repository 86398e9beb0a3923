#pragma once

#include "data/RunData.h"
#include "running/SessionRunner.h"
#include "window/KernelChooser.h"
#include "window/SessionActions.h"
#include "window/WindowLayout.h"

#include "kernels/KernelSpec.h"

#include <QMainWindow>
#include <QPointer>
#include <QStringList>
#include <map>
#include <memory>
#include <string>
#include <vector>

class QDockWidget;
class QLabel;
class QToolBar;
class QToolButton;
class QProgressBar;
class QTimer;

namespace ts {
struct SessionRecord;
} // namespace ts

namespace ts::gui {

class ComparisonView;
class ConvergenceView;
class CostModelView;
class ErrorReporter;
class ExplorerView;
class HardwareView;
class ParameterImportanceView;
class RecordsView;
class RunView;
class TaskPanel;
class TrialDetailsView;
class WorkloadView;
class WorkloadFromModel;

// The workbench window: the session toolbar (Start, Pause, Resume, Stop: always visible), the task panel
// (left dock), one dock per view (tabified), the trial details dock, a status bar with progress and ETA. Its
// layout fits the screen it is on: the first one is sized to it, a saved one larger than it is not restored
// (nor saved), and every dock scrolls rather than widen the window. It adapts core to Qt: sessions run on a
// SessionRunner's worker thread, datasets load on a thread pool, and a 10 Hz timer moves trials into RunData
// and redraws dirty views. Its parts: SessionActions (Start, Pause, Resume, Stop), KernelChooser (the kernel
// list and dataset loading), SessionSetup (what a session starts from), WindowLayout (docks and screen) and
// WindowSettings (what persists).
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // View names for --view and showView(): convergence, costmodel, importance, hardware, explorer,
    // comparison, records, workload.
    static QStringList viewNames();

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    ErrorReporter& errors() const { return *m_errors; }
    RunData& runData() { return m_data; }
    SessionRunner& runner() { return m_runner; }
    TaskPanel* taskPanel() const { return m_task; }
    ConvergenceView* convergenceView() const { return m_convergence; }
    CostModelView* costModelView() const { return m_costModel; }
    ExplorerView* explorerView() const { return m_explorer; }
    ComparisonView* comparisonView() const { return m_comparison; }
    RecordsView* recordsView() const { return m_records; }
    WorkloadView* workloadView() const { return m_workload; }
    // File > New workload from model... (null without ONNX).
    WorkloadFromModel* workloadFromModel() const { return m_fromModel; }
    HardwareView* hardwareView() const { return m_hardware; }
    ParameterImportanceView* importanceView() const { return m_importance; }
    TrialDetailsView* detailsView() const { return m_details; }
    QWidget* view(const QString& name) const;
    QProgressBar* progressBar() const { return m_progress; }
    // The status line (what the window is doing: the session running, the file being read, ...).
    QString statusText() const;
    QToolBar* sessionToolBar() const { return m_actions->toolBar(); }
    QToolButton* startButton() const { return m_actions->startButton(); }
    QToolButton* pauseButton() const { return m_actions->pauseButton(); }
    QToolButton* resumeButton() const { return m_actions->resumeButton(); }
    QToolButton* stopButton() const { return m_actions->stopButton(); }

    // The records database sessions are written to and listed from.
    void setDatabasePath(const QString& path);
    QString databasePath() const { return m_databasePath; }

    // Loads a replay dataset in the background; on success it becomes the task's kernel, on failure an
    // error is reported and nothing changes. Emits datasetLoaded or loadFailed.
    void openDataset(const QString& path) { m_kernels->openDataset(path); }
    bool isLoading() const { return m_kernels->isLoading(); }
    const std::shared_ptr<const Dataset>& dataset() const { return m_kernels->dataset(); }
    // Chooses a kernel list entry: a replay dataset path loads in the background (openDataset); a real
    // kernel's id (TaskPanel::catalogKernelId / specKernelId) reads its spec now, offers its size and
    // backends, and reports an error (changing nothing) when the spec cannot be read. Returns false then.
    bool chooseKernel(const QString& id) { return m_kernels->chooseKernel(id); }
    // Adds a kernel.json file to the kernel list and chooses it.
    bool openKernelSpec(const QString& path) { return m_kernels->openKernelSpec(path); }
    const std::shared_ptr<const KernelSpec>& kernelSpec() const { return m_kernels->kernelSpec(); }

    // Starts a session from the task panel; errors go to the error reporter. Returns whether it started. A
    // dataset shown in the kernel list but not read yet (the one restored at launch) is read first, and the
    // session starts once it is (false is returned then).
    bool startSession();
    // Opens a past session from the database into every view (trials, and the dataset when it still exists).
    void openSession(std::int64_t sessionId);
    // Continues an interrupted session of the database: its trials are preloaded and not measured again.
    bool resumeSession(std::int64_t sessionId);

    // Whether the window is kept on its screen (moved and shrunk onto it when it does not fit): true but for
    // screenshots of a given size.
    void setKeptOnScreen(bool kept) { m_layout->setKeptOnScreen(kept); }

    // Raises a view's dock; false for an unknown name.
    bool showView(const QString& name);
    // Shows every view side by side in a grid that fits the window (benchmarks, "all" screenshots): as many
    // columns as the width holds views of a readable width, two rows, the views that do not fit tabbed.
    void tileViews() { m_layout->tile(); }
    // The default layout (View > Reset layout): the task dock at the left, the views tabbed beside the trial
    // details, sized to the screen the window is on.
    void resetLayout() { m_layout->reset(); }
    // Moves pending trials into RunData and redraws the dirty views (visible ones, or all when forced).
    void refreshNow(bool force = false);
    // Longest time one refresh tick took so far (ms), and how many ticks ran.
    double longestRefreshMs() const { return m_longestRefreshMs; }

signals:
    void datasetLoaded(const QString& path);
    void loadFailed(const QString& path);
    void sessionStarted(qint64 sessionId);
    void sessionEnded(const QString& status);
    void refreshed(int evaluations);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void childEvent(QChildEvent* event) override;

private:
    void buildMenus();
    QDockWidget* addViewDock(const QString& name, const QString& title, QWidget* widget);
    void connectParts();
    // Shows the device of a backend in the hardware view: the CPU for "cpu", else the named device.
    void showDevice(const QString& backend, const QString& device);
    void chooseDatabaseFile();
    void onSessionStarted(qint64 sessionId);
    void onSessionFinished(const QString& status, const QString& reason, const QString& error);
    void updateStatusBar();
    // Resets RunData for a session of the database (its info, and the dataset's parameters when known).
    void loadSessionTrials(const SessionRecord& record, std::shared_ptr<const Dataset> dataset);
    void restoreSettings();

    std::unique_ptr<ErrorReporter> m_errors;
    RunData m_data;
    SessionRunner m_runner;
    QString m_databasePath;
    QTimer* m_refreshTimer;
    double m_longestRefreshMs = 0.0;

    TaskPanel* m_task;
    KernelChooser* m_kernels;
    ConvergenceView* m_convergence;
    CostModelView* m_costModel;
    HardwareView* m_hardware;
    ParameterImportanceView* m_importance;
    ExplorerView* m_explorer;
    ComparisonView* m_comparison;
    RecordsView* m_records;
    WorkloadView* m_workload;
    TrialDetailsView* m_details;
    std::vector<RunView*> m_runViews;
    std::map<QString, QDockWidget*> m_docks;
    QDockWidget* m_taskDock;
    QDockWidget* m_detailsDock;
    WindowLayout* m_layout = nullptr;
    WorkloadFromModel* m_fromModel = nullptr;
    SessionActions* m_actions = nullptr;
    bool m_startWhenLoaded = false; // Start was asked while the kernel list's dataset was being read

    QProgressBar* m_progress;
    QLabel* m_statusText;
    QLabel* m_etaText;
};

} // namespace ts::gui
