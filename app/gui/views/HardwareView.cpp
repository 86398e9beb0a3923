#include "views/HardwareView.h"

#include "charts/ChartSupport.h"
#include "charts/OccupancyCharts.h"
#include "charts/RooflineChart.h"
#include "data/DeviceFeatures.h"
#include "data/OccupancySummary.h"
#include "data/RunData.h"
#include "running/StaticAnalysisRunner.h"
#include "views/FeatureTable.h"

#include "hardware/GpuDatabase.h"
#include "hardware/OccupancyCurves.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/ProblemSizeJson.h"

#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QSplitter>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

namespace ts::gui {

namespace {

std::optional<double> trialMetric(const Trial& t, const char* name) {
    auto it = t.measurement.metrics.find(name);
    return it == t.measurement.metrics.end() ? std::nullopt : std::optional<double>(it->second);
}

// Threads per block from the metrics, else from Kernel Tuner's block_size_x/y/z parameters.
std::optional<int> threadsPerBlock(const Trial& t, const std::vector<Parameter>& parameters) {
    if (auto threads = trialMetric(t, "threads_per_block"))
        return static_cast<int>(*threads);
    int threads = 1;
    bool found = false;
    for (std::size_t p = 0; p < parameters.size() && p < t.config.size(); ++p)
        if ((parameters[p].name == "block_size_x" || parameters[p].name == "block_size_y" ||
             parameters[p].name == "block_size_z") &&
            isNumeric(t.config[p])) {
            threads *= static_cast<int>(toNumber(t.config[p]));
            found = true;
        }
    return found ? std::optional<int>(threads) : std::nullopt;
}

// Below this width (or the side-by-side arrangement's minimum, if larger) the view stacks its panes
// (features above charts, one chart per row) and its dock scrolls down.
constexpr int kNarrowWidth = 640;
// The width the view asks for at least: what the stacked arrangement needs (a 240 px chart and margins).
constexpr int kNarrowMinimumWidth = 280;
constexpr int kNarrowChartHeight = 260;

} // namespace

HardwareView::HardwareView(RunData& data, QWidget* parent)
    : RunView(data, parent), m_analyser(new StaticAnalysisRunner(this)),
      m_peaksWatcher(new QFutureWatcher<CpuInfo>(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setSizeConstraint(QLayout::SetNoConstraint); // minimumSizeHint says how narrow the view may be
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setChildrenCollapsible(false);
    layout->addWidget(m_splitter, 1);
    m_splitter->addWidget(buildDevicePane());

    auto* right = new QWidget(m_splitter);
    m_grid = new QGridLayout(right);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_occupancy = new OccupancyCharts(right);
    m_rooflineChart = new RooflineChart(right);
    m_rooflineChart->hide();
    m_splitter->addWidget(right);
    m_splitter->setSizes({420, 780});
    m_chartMinimumHeight = m_occupancy->view(0)->minimumHeight();
    arrange(false);

    connect(&data, &RunData::selectionChanged, this, [this] {
        markDirty();
        refreshIfNeeded();
    });
    connect(&data, &RunData::resetDone, this, &HardwareView::markDirty);
    connect(&data, &RunData::trialsAppended, this, &HardwareView::markDirty);
    connect(m_gpuChooser, &QComboBox::currentIndexChanged, this, [this] {
        markDirty();
        refreshIfNeeded();
    });
    connect(m_analyser, &StaticAnalysisRunner::analysed, this, &HardwareView::analysisArrived);
    connect(m_peaksWatcher, &QFutureWatcherBase::finished, this, [this] {
        m_cpuPeaks = m_peaksWatcher->result();
        if (m_cpu)
            showCpu();
        emit cpuPeaksReady();
    });
    showFeatures(QString());
}

// The device's name, its features, the GPU chooser and the selected trial's resources.
QWidget* HardwareView::buildDevicePane() {
    auto* left = new QWidget(m_splitter);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_device = new QLabel(tr("No device."), left);
    m_device->setWordWrap(true);
    leftLayout->addWidget(m_device);
    m_features = new FeatureTable(left);
    m_features->setMinimumHeight(120);
    leftLayout->addWidget(m_features, 1);
    auto* chooserRow = new QHBoxLayout;
    auto* chooserLabel = new QLabel(tr("Analyse for:"), left);
    m_gpuChooser = new QComboBox(left);
    m_gpuChooser->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_gpuChooser->setMinimumContentsLength(12);
    m_gpuChooser->setToolTip(tr("The GPU of the database the selected trial's config is analysed for: "
                                "compiled with NVRTC for its architecture, no GPU needed."));
    for (const GpuSpec& gpu : GpuDatabase::builtin().gpus())
        m_gpuChooser->addItem(QString::fromStdString(gpu.name), QString::fromStdString(gpu.id));
    chooserLabel->setBuddy(m_gpuChooser);
    chooserRow->addWidget(chooserLabel);
    chooserRow->addWidget(m_gpuChooser, 1);
    leftLayout->addLayout(chooserRow);
    m_resources = new QLabel(tr("Select a trial to see its resources and occupancy."), left);
    m_resources->setWordWrap(true);
    m_resources->setTextInteractionFlags(Qt::TextSelectableByMouse);
    leftLayout->addWidget(m_resources);
    return left;
}

void HardwareView::setDeviceName(const QString& name) {
    showFeatures(name);
    chooseDefaultGpu();
    setCurvesShown(true);
    m_rooflineChart->hide();
    fitLabels();
    markDirty();
    refreshIfNeeded();
}

QString HardwareView::analysisGpu() const {
    return m_gpuChooser->currentData().toString();
}

void HardwareView::setAnalysisGpu(const QString& id) {
    const GpuSpec* gpu = GpuDatabase::builtin().find(id.toStdString());
    const int index = gpu ? m_gpuChooser->findData(QString::fromStdString(gpu->id)) : -1;
    if (index >= 0)
        m_gpuChooser->setCurrentIndex(index);
}

void HardwareView::chooseDefaultGpu() {
    const GpuDatabase& db = GpuDatabase::builtin();
    const GpuSpec* chosen = m_gpu ? db.find(m_gpu->id) : nullptr;
    if (!chosen)
        chosen = db.find("H200");
    if (!chosen && !db.gpus().empty())
        chosen = &db.gpus().front();
    if (chosen)
        setAnalysisGpu(QString::fromStdString(chosen->id));
}

void HardwareView::showCpu() {
    m_gpu.reset();
    m_cpu = true;
    const CpuInfo cpu = m_cpuPeaks ? *m_cpuPeaks : CpuInfo::query();
    if (!m_cpuPeaks && !m_peaksWatcher->isRunning())
        m_peaksWatcher->setFuture(QtConcurrent::run([] { return CpuInfo::queryWithBandwidth(); }));
    m_device->setText(tr("<b>%1</b> (this machine's CPU)")
                          .arg(cpu.model.empty() ? tr("CPU") : QString::fromStdString(cpu.model)));
    m_features->setRows(DeviceFeatures::ofCpu(cpu, m_cpuPeaks.has_value()));
    chooseDefaultGpu();
    m_rooflineChart->show();
    fitLabels();
    markDirty();
    refreshIfNeeded();
}

QSize HardwareView::minimumSizeHint() const {
    const QSize hint = RunView::minimumSizeHint();
    return {m_narrow ? hint.width() : std::min(hint.width(), kNarrowMinimumWidth), hint.height()};
}

void HardwareView::resizeEvent(QResizeEvent* event) {
    RunView::resizeEvent(event);
    const bool narrow = event->size().width() < std::max(kNarrowWidth, m_wideMinimumWidth);
    if (narrow != m_narrow)
        arrange(narrow);
    // After the layout has given the labels their new widths.
    QMetaObject::invokeMethod(this, &HardwareView::fitLabels, Qt::QueuedConnection);
}

// Wide: features left of a 2 x 2 grid of charts. Narrow: features above the charts, one chart per row,
// each tall enough to read (the dock scrolls down).
void HardwareView::arrange(bool narrow) {
    m_narrow = narrow;
    m_splitter->setOrientation(narrow ? Qt::Vertical : Qt::Horizontal);
    QWidget* cells[4] = {m_occupancy->view(0), m_occupancy->view(1), m_occupancy->view(2), m_rooflineChart};
    QChartView* charts[4] = {m_occupancy->view(0), m_occupancy->view(1), m_occupancy->view(2),
                             m_rooflineChart->view()};
    for (int c = 0; c < 4; ++c) {
        m_grid->removeWidget(cells[c]);
        if (narrow)
            m_grid->addWidget(cells[c], c, 0);
        else
            m_grid->addWidget(cells[c], c / 2, c % 2);
        charts[c]->setMinimumHeight(narrow ? kNarrowChartHeight : m_chartMinimumHeight);
    }
    m_features->setMinimumHeight(narrow ? 220 : 120);
    if (!narrow)
        m_wideMinimumWidth = layout()->totalMinimumSize().width();
    updateGeometry();
}

void HardwareView::showFeatures(const QString& name) {
    m_gpu.reset();
    m_cpu = false;
    m_features->setRowCount(0);
    if (name.isEmpty()) {
        m_device->setText(tr("No device: open a dataset or a session."));
        return;
    }
    const GpuSpec* gpu = nullptr;
    QString problem;
    try {
        gpu = GpuDatabase::builtin().match(name.toStdString());
    } catch (const std::exception& e) {
        problem = QString::fromUtf8(e.what());
    }
    if (!gpu) {
        m_device->setText(problem.isEmpty()
                              ? tr("%1: not in the GPU database, so no features or occupancy.").arg(name)
                              : problem);
        return;
    }
    m_gpu = *gpu;
    m_device->setText(tr("<b>%1</b> (as %2; %3)")
                          .arg(QString::fromStdString(gpu->name), name, QString::fromStdString(gpu->source)));
    m_features->setRows(DeviceFeatures::ofGpu(*gpu));
}

// cpu sessions show the occupancy curves only while they draw an analysis; GPU sessions always.
void HardwareView::setCurvesShown(bool shown) {
    m_occupancy->setVisible(shown || !m_cpu);
}

void HardwareView::refresh() {
    refreshRoofline();
    showSelection();
    fitLabels();
}

// Word-wrapped labels as tall as their text at their width: splitters and the dock's scroll area ask
// widgets for their minimum height, which a wrapped label does not know by itself.
void HardwareView::fitLabels() {
    for (QLabel* label : {m_device, m_resources, m_rooflineChart->note()}) {
        const int width = label->width() > 0 ? label->width() : label->sizeHint().width();
        // heightForWidth is -1 for an empty label.
        label->setMinimumHeight(std::max(0, label->heightForWidth(width)));
    }
    updateGeometry();
}

// Nothing to draw for the selection: empty curves and one sentence.
void HardwareView::showNoAnalysis(const QString& text) {
    m_wanted.clear();
    m_shown.reset();
    m_occupancy->clear();
    m_resources->setText(text);
}

void HardwareView::showSelection() {
    const int row = data().selectedRow();
    if (row < 0 || row >= static_cast<int>(data().trials().size())) {
        showNoAnalysis(tr("Select a trial to see its resources and occupancy."));
        setCurvesShown(false);
        return;
    }
    const Trial& t = data().trials()[static_cast<std::size_t>(row)];
    const GpuSpec* chosen = GpuDatabase::builtin().find(analysisGpu().toStdString());
    if (!chosen)
        return showNoAnalysis(
            tr("The GPU database is empty: no GPU to analyse trial %1 for.").arg(t.number + 1));
    if (showMeasured(t, *chosen))
        return;
    requestAnalysis(row, *chosen);
}

// The trial's own resources when it was measured on `gpu` with them (the CUDA backend's metrics).
bool HardwareView::showMeasured(const Trial& t, const GpuSpec& gpu) {
    const auto registers = trialMetric(t, "registers");
    const auto threads = threadsPerBlock(t, data().parameters());
    if (!registers || !threads || !m_gpu || m_gpu->id != gpu.id || !OccupancyCalculator::available())
        return false;
    m_wanted.clear();
    m_shown.reset();
    KernelResources kernel;
    kernel.registersPerThread = static_cast<int>(*registers);
    kernel.staticSharedBytes = static_cast<std::int64_t>(trialMetric(t, "shared_bytes").value_or(0.0));
    const auto dynamic = static_cast<std::int64_t>(trialMetric(t, "dynamic_shared_bytes").value_or(0.0));
    try {
        drawCurves(gpu, kernel, *threads, dynamic);
        const Occupancy o = OccupancyCalculator(gpu).compute(kernel, *threads, dynamic);
        m_resources->setText(OccupancySummary::measured(t.number + 1, gpu, kernel, *threads, dynamic, o));
    } catch (const std::exception& e) {
        m_occupancy->clear();
        m_resources->setText(QString::fromUtf8(e.what()));
    }
    return true;
}

// The run's kernel from the catalog, by the name the run records, else the dataset kernel whose cuda entry
// function has that name; null (and `problem` set) when neither has it. Looked up once per name.
std::shared_ptr<const KernelSpec> HardwareView::runSpec(QString* problem) {
    const QString name = data().info().kernel;
    auto it = m_specs.find(name);
    if (it == m_specs.end()) {
        std::shared_ptr<const KernelSpec> spec;
        try {
            spec = std::make_shared<const KernelSpec>(KernelCatalog().find(name.toStdString()));
        } catch (const std::exception&) {
            // A replay dataset names the measured function: the specs of the bundled datasets' sources
            // (resources/dataset-kernels, see docs/gpu.md) describe how its configs compile.
            const KernelCatalog datasetKernels({TUNESCOPE_RESOURCE_DIR "/dataset-kernels"});
            if (const KernelSpec* found = datasetKernels.findByEntry("cuda", name.toStdString())) {
                spec = std::make_shared<const KernelSpec>(*found);
                m_datasetKernels.insert(name);
            }
        }
        it = m_specs.emplace(name, std::move(spec)).first;
    }
    if (!it->second && problem)
        *problem = name.isEmpty() ? tr("The run names no kernel, so it has no CUDA variant to analyse.")
                                  : tr("Kernel %1 is neither in the kernel catalog nor a dataset kernel "
                                       "(resources/dataset-kernels), so its CUDA variant is unknown.")
                                        .arg(name);
    return it->second;
}

// The run's problem size: its stored problem JSON when that is the spec's, else the spec's default.
ProblemSize HardwareView::runSize(const KernelSpec& spec) const {
    return parseProblemJson(spec, data().info().problem.toStdString()).value_or(spec.defaultSize());
}

void HardwareView::requestAnalysis(int row, const GpuSpec& gpu) {
    const Trial& t = data().trials()[static_cast<std::size_t>(row)];
    const auto cannot = [&](const QString& why) {
        showNoAnalysis(tr("Trial %1 cannot be analysed for %2: %3")
                           .arg(t.number + 1)
                           .arg(QString::fromStdString(gpu.name), why));
        setCurvesShown(false);
    };
    QString problem;
    const std::shared_ptr<const KernelSpec> spec = runSpec(&problem);
    if (!spec)
        return cannot(problem);
    if (!spec->variant("cuda"))
        return cannot(tr("kernel %1 has no CUDA variant.").arg(QString::fromStdString(spec->name)));
#ifndef TUNESCOPE_WITH_CUDA
    return cannot(StaticAnalysisRunner::noNvrtc());
#endif
    StaticAnalysisRunner::Request request;
    request.spec = spec;
    request.datasetKernel = m_datasetKernels.count(data().info().kernel) > 0;
    request.size = runSize(*spec);
    request.parameters = data().parameters();
    request.config = t.config;
    request.gpu = gpu;
    const QString key = request.key();
    m_wantedTrial = t.number + 1;
    if (const HardwareAnalysis* done = m_analyser->cached(key)) {
        m_wanted.clear();
        showAnalysis(*done, m_wantedTrial);
        return;
    }
    showNoAnalysis(tr("Analysing trial %1 for %2 (NVRTC compile, no GPU needed)...")
                       .arg(m_wantedTrial)
                       .arg(QString::fromStdString(gpu.name)));
    m_wanted = key;
    m_analyser->request(std::move(request));
}

void HardwareView::analysisArrived(const HardwareAnalysis& a) {
    if (a.key != m_wanted)
        return; // the selection or the GPU changed meanwhile
    m_wanted.clear();
    showAnalysis(a, m_wantedTrial);
    fitLabels();
    emit analysisShown();
}

void HardwareView::showAnalysis(const HardwareAnalysis& a, int trialNumber) {
    m_shown.reset();
    m_occupancy->clear();
    const QString gpu = QString::fromStdString(a.gpu.name);
    if (!a.profile) {
        setCurvesShown(false);
        m_resources->setText(
            tr("Trial %1 cannot be analysed for %2: %3").arg(trialNumber).arg(gpu, a.problem));
        return;
    }
    const StaticProfile& p = *a.profile;
    if (!p.compiled) {
        setCurvesShown(false);
        const QString log = QString::fromStdString(p.log).trimmed().section('\n', 0, 0);
        m_resources->setText(
            tr("Trial %1 does not compile for %2 (%3) with NVRTC%4")
                .arg(trialNumber)
                .arg(gpu, QString::fromStdString(p.architecture), log.isEmpty() ? QString(".") : ": " + log));
        return;
    }
    const auto threads = static_cast<int>(std::min<std::int64_t>(p.launch.threadsPerBlock(), 1 << 30));
    try {
        drawCurves(a.gpu, p.resources, threads, p.launch.dynamicSharedBytes);
    } catch (const std::exception& e) {
        m_occupancy->clear();
        m_resources->setText(QString::fromUtf8(e.what()));
        return;
    }
    m_shown = a;
    setCurvesShown(true);
    m_resources->setText(OccupancySummary::analysed(trialNumber, a, threads));
}

void HardwareView::drawCurves(const GpuSpec& gpu, const KernelResources& kernel, int threads,
                              std::int64_t dynamic) {
    const OccupancyCalculator calculator(gpu);
    m_occupancy->draw(OccupancyPlot::of(OccupancyCurves::compute(calculator, kernel, threads, dynamic)));
}

void HardwareView::refreshRoofline() {
    if (!m_cpu) {
        m_roofline.reset();
        return;
    }
    QString problem;
    const std::shared_ptr<const KernelSpec> spec = runSpec(&problem);
    if (!spec) {
        m_roofline.reset();
        m_rooflineChart->clear(tr("No roofline: %1").arg(problem));
        return;
    }
    CpuInfo cpu = m_cpuPeaks ? *m_cpuPeaks : CpuInfo::query();
    if (!m_cpuPeaks)
        cpu.memoryBandwidthSource = "the memory bandwidth is being measured (a few tenths of a second)";
    try {
        m_roofline = Roofline::of(cpu, *spec, runSize(*spec), data().trials());
    } catch (const std::exception& e) {
        m_roofline.reset();
        m_rooflineChart->clear(tr("No roofline: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    const QString kernel = tr("%1 at %2")
                               .arg(QString::fromStdString(spec->name),
                                    QString::fromStdString(formatProblemSize(*spec, runSize(*spec))));
    m_rooflineChart->draw(RooflinePlot::of(*m_roofline, data().selectedRow(),
                                           QString::fromStdString(cpu.memoryBandwidthSource), kernel));
}

} // namespace ts::gui
