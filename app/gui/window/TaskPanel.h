#pragma once

#include "session/SessionPlan.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSettings;
class QSpinBox;
class QCheckBox;
class QGroupBox;

namespace ts::gui {

class OptionForm;

// The task to tune: kernel (a replay dataset, bundled or opened, or a kernel measured for real: one of the
// catalog's or a kernel.json file), problem size (editable for a real kernel), backend and device, the
// measurement options of real kernels (timeout, repeat, minimum sample time, warm-up) and extra constraints,
// strategy with a form generated from its option table, budget and stop conditions, seed, space mode. It only
// collects input: the main window's toolbar starts it (validated through core), pauses, resumes and stops it.
class TaskPanel : public QWidget {
    Q_OBJECT
public:
    explicit TaskPanel(QWidget* parent = nullptr);

    SessionPlan task() const;
    void setTask(const SessionPlan& task);

    // Kernel list ids of kernels measured for real (a replay dataset's id is its path).
    static QString catalogKernelId(const QString& name) { return "kernel:" + name; }
    static QString specKernelId(const QString& path) { return "spec:" + path; }
    static bool isRealKernelId(const QString& id) {
        return id.startsWith("kernel:") || id.startsWith("spec:");
    }

    // Adds a kernel source (a replay dataset path, or a real kernel's id) to the kernel list and selects it
    // without emitting.
    void addKernel(const QString& label, const QString& path, bool select);
    QString kernelPath() const;
    // Selects the kernel with this path without emitting; none when it is not in the list.
    void selectKernel(const QString& path);
    // What the chosen kernel is: shown read-only (problem size and device come from a replay dataset).
    void describeKernel(const QString& problem, const QString& device, const QString& space);
    // A real kernel is chosen: the size becomes editable (set to `size`) and the backends those offered
    // (cpu, and cuda where a device exists); for a replay dataset the size is read-only and the backend
    // replay.
    void setRealKernel(bool real, const QString& size = {}, const QStringList& backends = {});

    // What the running session's warm start was built from (its sources, their devices and configs), as
    // core says it: cleared when a session starts, a line added per remark.
    void clearWarmStart();
    // What the panel shows until core says a session started warm.
    static constexpr const char* kStartedCold = "nothing (a cold start)";
    void addWarmStart(const QString& line);
    QString warmStartText() const;

    void saveSettings(QSettings& settings) const;
    void restoreSettings(const QSettings& settings);

    QComboBox* strategyBox() const { return m_strategy; }
    OptionForm* optionForm() const { return m_options; }
    QComboBox* kernelBox() const { return m_kernel; }
    QLineEdit* problemEdit() const { return m_problem; }
    QComboBox* backendBox() const { return m_backend; }
    QLineEdit* constraintsEdit() const { return m_constraints; }
    QDoubleSpinBox* timeoutBox() const { return m_timeout; }
    QSpinBox* repeatBox() const { return m_repeat; }
    QDoubleSpinBox* minRepeatBox() const { return m_minRepeat; }
    QDoubleSpinBox* warmupBox() const { return m_warmup; }
    QSpinBox* budgetBox() const { return m_budget; }

signals:
    void kernelChosen(const QString& path);
    void openRequested();
    void openSpecRequested();

private:
    void strategyChanged();

    QComboBox* m_kernel;
    QLineEdit* m_problem;
    QComboBox* m_backend;
    QLabel* m_device;
    QLabel* m_space;
    QLineEdit* m_constraints;
    SessionPlan m_plan; // the plan last set; task() is it with the fields the panel shows
    QGroupBox* m_measureBox;
    QDoubleSpinBox* m_timeout;
    QSpinBox* m_repeat;
    QDoubleSpinBox* m_minRepeat;
    QDoubleSpinBox* m_warmup;
    QComboBox* m_strategy;
    QLabel* m_strategyHelp;
    OptionForm* m_options;
    QSpinBox* m_budget;
    QDoubleSpinBox* m_timeLimit;
    QSpinBox* m_patience;
    QDoubleSpinBox* m_target;
    QSpinBox* m_seed;
    QComboBox* m_mode;
    QSpinBox* m_batch;
    QCheckBox* m_stochastic;
    QCheckBox* m_cold;
    QCheckBox* m_transfer;
    QLabel* m_warmStartInfo;
};

} // namespace ts::gui
