#include "window/TaskPanel.h"

#include "window/OptionForm.h"

#include "strategies/StrategyRegistry.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <limits>

namespace ts::gui {

TaskPanel::TaskPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);

    auto* kernelBox = new QGroupBox(tr("Kernel"), this);
    auto* kernelForm = new QFormLayout(kernelBox);
    auto* kernelRow = new QHBoxLayout;
    m_kernel = new QComboBox(kernelBox);
    m_kernel->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_kernel->setMinimumContentsLength(16);
    auto* open = new QToolButton(kernelBox);
    open->setText(tr("Open..."));
    open->setToolTip(tr("Open a replay dataset"));
    auto* openSpec = new QToolButton(kernelBox);
    openSpec->setText(tr("Open kernel spec..."));
    openSpec->setToolTip(tr("Measure the kernel of a kernel.json file for real"));
    kernelRow->addWidget(m_kernel, 1);
    kernelRow->addWidget(open);
    kernelForm->addRow(tr("Kernel"), kernelRow);
    kernelForm->addRow(QString(), openSpec);
    m_problem = new QLineEdit(kernelBox);
    m_problem->setReadOnly(true);
    m_problem->setToolTip(tr("All values in order (64,64,64) or some by name (M=64)"));
    kernelForm->addRow(tr("Problem size"), m_problem);
    m_backend = new QComboBox(kernelBox);
    kernelForm->addRow(tr("Backend"), m_backend);
    m_device = new QLabel(tr("none"), kernelBox);
    m_device->setWordWrap(true);
    kernelForm->addRow(tr("Device"), m_device);
    m_space = new QLabel(kernelBox);
    m_space->setWordWrap(true);
    kernelForm->addRow(tr("Space"), m_space);
    m_constraints = new QLineEdit(kernelBox);
    m_constraints->setPlaceholderText(tr("e.g. MC <= 32; NR == 4"));
    m_constraints->setToolTip(tr("Extra constraints narrowing a real kernel's space, separated by ';'"));
    kernelForm->addRow(tr("Constraints"), m_constraints);
    layout->addWidget(kernelBox);

    m_measureBox = new QGroupBox(tr("Measurement (real kernels)"), this);
    auto* measureForm = new QFormLayout(m_measureBox);
    const KernelTuneOptions defaults;
    m_timeout = new QDoubleSpinBox(m_measureBox);
    m_timeout->setRange(0.1, 3600);
    m_timeout->setSuffix(" s");
    m_timeout->setValue(defaults.timeoutS);
    m_timeout->setToolTip(tr("Seconds one config may take to verify and measure"));
    measureForm->addRow(tr("Timeout"), m_timeout);
    m_repeat = new QSpinBox(m_measureBox);
    m_repeat->setRange(1, 1000);
    m_repeat->setValue(defaults.timing.repeat);
    m_repeat->setToolTip(tr("Timed samples per config"));
    measureForm->addRow(tr("Repeat"), m_repeat);
    m_minRepeat = new QDoubleSpinBox(m_measureBox);
    m_minRepeat->setRange(0, 10'000);
    m_minRepeat->setSuffix(" ms");
    m_minRepeat->setValue(defaults.timing.minRepeatMs);
    m_minRepeat->setToolTip(tr("Calls per sample grow until a sample lasts this long"));
    measureForm->addRow(tr("Min sample time"), m_minRepeat);
    m_warmup = new QDoubleSpinBox(m_measureBox);
    m_warmup->setRange(0, 10'000);
    m_warmup->setSuffix(" ms");
    m_warmup->setValue(defaults.timing.warmupMs);
    m_warmup->setToolTip(tr("Warm-up time per config before timing"));
    measureForm->addRow(tr("Warm-up"), m_warmup);
    layout->addWidget(m_measureBox);

    auto* strategyBox = new QGroupBox(tr("Strategy"), this);
    auto* strategyLayout = new QVBoxLayout(strategyBox);
    m_strategy = new QComboBox(strategyBox);
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    m_strategy->addItem(QString("default (%1)").arg(QString::fromStdString(registry.defaultName())),
                        StrategyRegistry::kDefaultAlias);
    for (const std::string& name : registry.names())
        m_strategy->addItem(QString::fromStdString(name), QString::fromStdString(name));
    strategyLayout->addWidget(m_strategy);
    m_strategyHelp = new QLabel(strategyBox);
    m_strategyHelp->setWordWrap(true);
    strategyLayout->addWidget(m_strategyHelp);
    m_options = new OptionForm(strategyBox);
    strategyLayout->addWidget(m_options);
    layout->addWidget(strategyBox);

    auto* stopBox = new QGroupBox(tr("Budget and stop conditions"), this);
    auto* stopForm = new QFormLayout(stopBox);
    m_budget = new QSpinBox(stopBox);
    m_budget->setRange(1, 10'000'000);
    m_budget->setValue(100);
    stopForm->addRow(tr("Budget (evaluations)"), m_budget);
    m_timeLimit = new QDoubleSpinBox(stopBox);
    m_timeLimit->setRange(0, 1e7);
    m_timeLimit->setSpecialValueText(tr("none"));
    m_timeLimit->setSuffix(" s");
    stopForm->addRow(tr("Time limit"), m_timeLimit);
    m_patience = new QSpinBox(stopBox);
    m_patience->setRange(0, 10'000'000);
    m_patience->setSpecialValueText(tr("none"));
    stopForm->addRow(tr("Patience"), m_patience);
    m_target = new QDoubleSpinBox(stopBox);
    m_target->setRange(0, 1e9);
    m_target->setDecimals(4);
    m_target->setSpecialValueText(tr("none"));
    m_target->setSuffix(" ms");
    stopForm->addRow(tr("Target time"), m_target);
    m_seed = new QSpinBox(stopBox);
    m_seed->setRange(0, std::numeric_limits<int>::max());
    stopForm->addRow(tr("Seed"), m_seed);
    m_mode = new QComboBox(stopBox);
    m_mode->addItem(tr("constrained"), "constrained");
    m_mode->addItem(tr("product"), "product");
    stopForm->addRow(tr("Space mode"), m_mode);
    m_batch = new QSpinBox(stopBox);
    m_batch->setRange(1, 4096);
    m_batch->setValue(8);
    stopForm->addRow(tr("Batch size"), m_batch);
    m_stochastic = new QCheckBox(tr("draw one recorded sample (replay)"), stopBox);
    stopForm->addRow(tr("Stochastic"), m_stochastic);
    m_cold = new QCheckBox(tr("start cold"), stopBox);
    m_cold->setToolTip(
        tr("Without it, xgb starts warm from what Tunescope knows of this kernel: the bundled and "
           "added datasets of it measured on other GPUs and its earlier sessions on other "
           "devices or sizes (as tune without --cold)"));
    stopForm->addRow(tr("Warm start"), m_cold);
    m_transfer = new QCheckBox(tr("from every earlier session of this kernel (xgb)"), stopBox);
    m_transfer->setToolTip(tr("xgb also starts from what the records database holds for the same kernel on "
                              "this device and size (as tune --transfer)"));
    stopForm->addRow(QString(), m_transfer);
    m_warmStartInfo = new QLabel(stopBox);
    m_warmStartInfo->setObjectName("warmStartSources");
    m_warmStartInfo->setWordWrap(true);
    m_warmStartInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stopForm->addRow(tr("Started from"), m_warmStartInfo);
    layout->addWidget(stopBox);

    layout->addStretch();
    setRealKernel(false);

    connect(open, &QToolButton::clicked, this, &TaskPanel::openRequested);
    connect(openSpec, &QToolButton::clicked, this, &TaskPanel::openSpecRequested);
    connect(m_kernel, &QComboBox::activated, this,
            [this](int index) { emit kernelChosen(m_kernel->itemData(index).toString()); });
    connect(m_strategy, &QComboBox::currentIndexChanged, this, &TaskPanel::strategyChanged);
    strategyChanged();
    // A long entry (a dataset's file name) is elided in its box instead of widening the panel and its dock.
    for (QComboBox* box : findChildren<QComboBox*>()) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(12);
    }
}

void TaskPanel::strategyChanged() {
    const StrategyRegistry::Entry& entry =
        StrategyRegistry::builtin().entry(m_strategy->currentData().toString().toStdString());
    m_strategyHelp->setText(QString::fromStdString(entry.description));
    m_options->setOptions(entry.options);
}

SessionPlan TaskPanel::task() const {
    // What the panel has no field for (priors, a replay session's constraints) is kept from the plan set.
    SessionPlan t = m_plan;
    t.backend = m_backend->currentData().toString().toStdString();
    t.strategy = m_strategy->currentData().toString().toStdString();
    t.options = m_options->values();
    t.budget = m_budget->value();
    t.timeLimitS = m_timeLimit->value();
    t.patience = m_patience->value();
    t.targetMs = m_target->value();
    t.seed = static_cast<std::uint64_t>(m_seed->value());
    t.mode = m_mode->currentData().toString() == "product" ? SpaceMode::Product : SpaceMode::Constrained;
    t.batchSize = static_cast<std::size_t>(m_batch->value());
    t.stochastic = m_stochastic->isChecked();
    t.cold = m_cold->isChecked();
    t.transfer = m_transfer->isChecked();
    const QString id = kernelPath();
    if (!isRealKernelId(id)) {
        t.backend = "replay"; // a dataset chosen while the panel still offers a real kernel's backends
        t.kernel = {};
        return t;
    }
    t.dataset.clear();
    t.kernel = {};
    t.constraints.clear();
    if (id.startsWith("kernel:"))
        t.kernel.kernel = id.mid(7).toStdString();
    else
        t.kernel.kernelSpec = id.mid(5).toStdString();
    t.kernel.size = m_problem->text().trimmed().toStdString();
    t.kernel.timeoutS = m_timeout->value();
    t.kernel.timing.repeat = m_repeat->value();
    t.kernel.timing.minRepeatMs = m_minRepeat->value();
    t.kernel.timing.warmupMs = m_warmup->value();
    for (const QString& c : m_constraints->text().split(';', Qt::SkipEmptyParts))
        if (!c.trimmed().isEmpty())
            t.constraints.push_back(c.trimmed().toStdString());
    return t;
}

void TaskPanel::setTask(const SessionPlan& t) {
    m_plan = t;
    QStringList constraints;
    for (const std::string& c : t.constraints)
        constraints << QString::fromStdString(c);
    if (t.measuresKernel())
        m_constraints->setText(constraints.join("; "));
    int strategy = m_strategy->findData(QString::fromStdString(t.strategy));
    if (strategy >= 0)
        m_strategy->setCurrentIndex(strategy);
    m_options->setValues(t.options);
    m_budget->setValue(static_cast<int>(t.budget));
    m_timeLimit->setValue(t.timeLimitS);
    m_patience->setValue(static_cast<int>(t.patience));
    m_target->setValue(t.targetMs);
    m_seed->setValue(static_cast<int>(t.seed));
    m_mode->setCurrentIndex(t.mode == SpaceMode::Product ? 1 : 0);
    m_batch->setValue(static_cast<int>(t.batchSize));
    m_stochastic->setChecked(t.stochastic);
    m_cold->setChecked(t.cold);
    m_transfer->setChecked(t.transfer);
    m_timeout->setValue(t.kernel.timeoutS);
    m_repeat->setValue(t.kernel.timing.repeat);
    m_minRepeat->setValue(t.kernel.timing.minRepeatMs);
    m_warmup->setValue(t.kernel.timing.warmupMs);
    // A real kernel's backend and size, when the panel offers them (a kernel is chosen).
    if (t.measuresKernel() && isRealKernelId(kernelPath())) {
        if (const int backend = m_backend->findData(QString::fromStdString(t.backend)); backend >= 0)
            m_backend->setCurrentIndex(backend);
        if (!t.kernel.size.empty())
            m_problem->setText(QString::fromStdString(t.kernel.size));
    }
}

void TaskPanel::addKernel(const QString& label, const QString& path, bool select) {
    int index = m_kernel->findData(path);
    if (index < 0) {
        m_kernel->addItem(label, path);
        index = m_kernel->count() - 1;
    }
    if (select) {
        QSignalBlocker block(m_kernel);
        m_kernel->setCurrentIndex(index);
    }
}

void TaskPanel::selectKernel(const QString& path) {
    QSignalBlocker block(m_kernel);
    m_kernel->setCurrentIndex(path.isEmpty() ? -1 : m_kernel->findData(path));
}

QString TaskPanel::kernelPath() const {
    return m_kernel->currentData().toString();
}

void TaskPanel::describeKernel(const QString& problem, const QString& device, const QString& space) {
    m_problem->setText(problem);
    m_device->setText(device);
    m_space->setText(space);
}

void TaskPanel::setRealKernel(bool real, const QString& size, const QStringList& backends) {
    m_problem->setReadOnly(!real);
    m_constraints->setEnabled(real);
    m_measureBox->setEnabled(real);
    m_stochastic->setEnabled(!real);
    m_backend->clear();
    if (!real) {
        m_backend->addItem(tr("replay (recorded measurements)"), "replay");
        return;
    }
    m_problem->setText(size);
    for (const QString& backend : backends)
        m_backend->addItem(backend == "cpu" ? tr("cpu (this machine)") : backend, backend);
}

void TaskPanel::saveSettings(QSettings& settings) const {
    SessionPlan t = task();
    settings.beginGroup("task");
    settings.setValue("strategy", QString::fromStdString(t.strategy));
    settings.setValue("budget", static_cast<qlonglong>(t.budget));
    settings.setValue("timeLimit", t.timeLimitS);
    settings.setValue("patience", static_cast<qlonglong>(t.patience));
    settings.setValue("target", t.targetMs);
    settings.setValue("seed", static_cast<qulonglong>(t.seed));
    settings.setValue("mode", QString(toString(t.mode)));
    settings.setValue("batch", static_cast<qulonglong>(t.batchSize));
    settings.setValue("stochastic", t.stochastic);
    settings.setValue("cold", t.cold);
    settings.setValue("transfer", t.transfer);
    settings.setValue("timeout", m_timeout->value());
    settings.setValue("repeat", m_repeat->value());
    settings.setValue("minRepeatMs", m_minRepeat->value());
    settings.setValue("warmupMs", m_warmup->value());
    settings.endGroup();
}

void TaskPanel::restoreSettings(const QSettings& settings) {
    SessionPlan t = task();
    auto get = [&settings](const char* key) { return settings.value(QString("task/") + key); };
    if (get("strategy").isValid())
        t.strategy = get("strategy").toString().toStdString();
    t.budget = get("budget").isValid() ? get("budget").toLongLong() : t.budget;
    t.timeLimitS = get("timeLimit").toDouble();
    t.patience = get("patience").toLongLong();
    t.targetMs = get("target").toDouble();
    t.seed = get("seed").toULongLong();
    t.mode = get("mode").toString() == "product" ? SpaceMode::Product : SpaceMode::Constrained;
    t.batchSize = get("batch").isValid() ? get("batch").toULongLong() : t.batchSize;
    t.stochastic = get("stochastic").toBool();
    t.cold = get("cold").toBool();
    t.transfer = get("transfer").toBool();
    t.kernel.timeoutS = get("timeout").isValid() ? get("timeout").toDouble() : t.kernel.timeoutS;
    t.kernel.timing.repeat = get("repeat").isValid() ? get("repeat").toInt() : t.kernel.timing.repeat;
    t.kernel.timing.minRepeatMs =
        get("minRepeatMs").isValid() ? get("minRepeatMs").toDouble() : t.kernel.timing.minRepeatMs;
    t.kernel.timing.warmupMs =
        get("warmupMs").isValid() ? get("warmupMs").toDouble() : t.kernel.timing.warmupMs;
    setTask(t);
}

void TaskPanel::clearWarmStart() {
    m_warmStartInfo->setText(kStartedCold);
}

void TaskPanel::addWarmStart(const QString& line) {
    const QString now = m_warmStartInfo->text();
    m_warmStartInfo->setText(now == kStartedCold || now.isEmpty() ? line : now + "\n" + line);
}

QString TaskPanel::warmStartText() const {
    return m_warmStartInfo->text();
}

} // namespace ts::gui
