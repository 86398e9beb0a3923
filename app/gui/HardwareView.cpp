#include "HardwareView.h"

#include "ChartSupport.h"
#include "RunData.h"

#include "hardware/CpuInfo.h"
#include "hardware/GpuDatabase.h"
#include "hardware/OccupancyCurves.h"
#include "kernels/ConfigMapping.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpace.h"
#include "kernels/ProblemSizeJson.h"
#ifdef TUNESCOPE_WITH_CUDA
#include "cuda/CudaStaticAnalyzer.h"
#endif

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QResizeEvent>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>

namespace ts::gui {

namespace {

// The database entry for a device name as datasets and runtimes write it.
const GpuSpec* findGpu(const std::string& name) {
    return GpuDatabase::builtin().match(name);
}

QString bytes(double value) {
    if (value >= 1 << 20)
        return QString("%1 MB").arg(value / (1 << 20), 0, 'g', 4);
    if (value >= 1 << 10)
        return QString("%1 KB").arg(value / (1 << 10), 0, 'g', 4);
    return QString("%1 B").arg(value);
}

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

// The widest vector registers the SIMD flags promise, in bits; 0 when none is known.
int simdWidthBits(const std::vector<std::string>& flags) {
    auto has = [&flags](const char* name) {
        return std::find(flags.begin(), flags.end(), name) != flags.end();
    };
    if (has("avx512f"))
        return 512;
    if (has("avx") || has("avx2"))
        return 256;
    if (has("sse2") || has("sse4_2") || has("neon") || has("asimd"))
        return 128;
    return 0;
}

QString cacheText(const CpuCache& cache) {
    QString text =
        QString("%1 %2").arg(bytes(static_cast<double>(cache.bytes)), QString::fromStdString(cache.type));
    if (cache.sharedByCpus > 1)
        text += QObject::tr(", shared by %1 CPUs").arg(cache.sharedByCpus);
    return text;
}

// Below this width (or the side-by-side arrangement's minimum, if larger) the view stacks its panes
// (features above charts, one chart per row) and its dock scrolls down.
constexpr int kNarrowWidth = 640;
// The width the view asks for at least: what the stacked arrangement needs (a 240 px chart and margins).
constexpr int kNarrowMinimumWidth = 280;
constexpr int kNarrowChartHeight = 260;
// Results kept for reuse (one per config and GPU); beyond this the oldest are dropped all at once.
constexpr std::size_t kMaxResults = 1024;

const char* const kNoNvrtc = "This build of Tunescope has no NVRTC (it was built without the CUDA toolkit), "
                             "so configs cannot be analysed for a GPU.";

// The cuda variant's space of a kernel at a size, built once per (kernel, size) for every analysis
// (enumerating a space takes a while). Any thread.
std::shared_ptr<const KernelSpace> cudaSpace(const std::shared_ptr<const KernelSpec>& spec,
                                             const ProblemSize& size) {
    static std::mutex mutex;
    static std::map<std::pair<std::string, ProblemSize>, std::shared_ptr<const KernelSpace>> spaces;
    const auto key = std::make_pair(spec->specFile.string() + "|" + spec->name, size);
    {
        std::lock_guard lock(mutex);
        if (auto it = spaces.find(key); it != spaces.end())
            return it->second;
    }
    auto space = std::make_shared<const KernelSpace>(*spec, "cuda", size);
    std::lock_guard lock(mutex);
    return spaces.emplace(key, std::move(space)).first->second;
}

// The worker's part: map the config into the cuda space and analyse it with NVRTC. Never throws.
template <typename Request> HardwareAnalysis analyse(const Request& request) {
    HardwareAnalysis a;
    a.key = request.key;
    a.gpu = request.gpu;
#ifdef TUNESCOPE_WITH_CUDA
    try {
        const std::shared_ptr<const KernelSpace> space = cudaSpace(request.spec, request.size);
        const ConfigMapping mapping =
            ConfigMapping::of(request.parameters, request.config, *space,
                              request.datasetKernel ? ConfigMapping::MissingParameters::TakeDefaults
                                                    : ConfigMapping::MissingParameters::Fail);
        for (const std::string& name : mapping.ignored)
            a.ignored << QString::fromStdString(name);
        if (!mapping.index) {
            a.problem = QString::fromStdString(mapping.problem);
            return a;
        }
        NvrtcCompiler compiler;
        CudaStaticAnalyzer analyzer(*request.spec, *space, request.gpu, compiler);
        a.profile = analyzer.profile(*mapping.index);
        a.note = QString::fromStdString(analyzer.note());
    } catch (const std::exception& e) {
        a.problem = QString::fromUtf8(e.what());
    }
#else
    a.problem = QObject::tr(kNoNvrtc);
#endif
    return a;
}

QString configText(const std::vector<Parameter>& parameters, const Config& config) {
    QStringList parts;
    for (std::size_t p = 0; p < parameters.size() && p < config.size(); ++p)
        parts << QString::fromStdString(parameters[p].name + "=" + toString(config[p]));
    return parts.join(',');
}

QString gflopsText(double value) {
    return value >= 1000 ? QString("%1 TFLOP/s").arg(value / 1000, 0, 'g', 4)
                         : QString("%1 GFLOP/s").arg(value, 0, 'g', 4);
}

// The item view's text: word wrapped, with the full text as a tooltip (a word wider than its column).
QTableWidgetItem* featureItem(const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setToolTip(text);
    return item;
}

} // namespace

HardwareView::HardwareView(RunData& data, QWidget* parent)
    : RunView(data, parent), m_analysis(new QFutureWatcher<HardwareAnalysis>(this)),
      m_peaksWatcher(new QFutureWatcher<CpuInfo>(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setSizeConstraint(QLayout::SetNoConstraint); // minimumSizeHint says how narrow the view may be
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setChildrenCollapsible(false);
    layout->addWidget(m_splitter, 1);
    auto* left = new QWidget(m_splitter);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_device = new QLabel(tr("No device."), left);
    m_device->setWordWrap(true);
    leftLayout->addWidget(m_device);
    m_features = new QTableWidget(0, 2, left);
    m_features->setHorizontalHeaderLabels({tr("feature"), tr("value")});
    m_features->verticalHeader()->hide();
    // Every cell shows all of its text: the value column takes what the feature column leaves, both wrap,
    // and rows grow to their wrapped text (fitFeatures sizes the feature column to the table's width).
    m_features->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Fixed);
    m_features->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_features->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_features->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_features->setWordWrap(true);
    m_features->setTextElideMode(Qt::ElideNone);
    m_features->setEditTriggers(QAbstractItemView::NoEditTriggers);
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
    m_splitter->addWidget(left);

    auto* right = new QWidget(m_splitter);
    m_grid = new QGridLayout(right);
    m_grid->setContentsMargins(0, 0, 0, 0);
    const QString titles[3] = {tr("Occupancy vs threads per block"), tr("Occupancy vs registers per thread"),
                               tr("Occupancy vs shared memory per block")};
    const QString units[3] = {tr("threads per block"), tr("registers per thread"), tr("shared memory (KB)")};
    for (int c = 0; c < 3; ++c) {
        m_curves[c] = charts::makeChartView(titles[c], right);
        QChart* chart = m_curves[c]->chart();
        chart->legend()->hide();
        m_x[c] = charts::makeAxis(units[c], false);
        m_y[c] = charts::makeAxis(tr("occupancy (%)"), false);
        chart->addAxis(m_x[c], Qt::AlignBottom);
        chart->addAxis(m_y[c], Qt::AlignLeft);
        charts::setRangeIfChanged(m_y[c], 0, 100); // a percentage: the axis ends at 100 %
        m_lines[c] = new QLineSeries;
        m_lines[c]->setPen(QPen(QColor(30, 90, 200), 2));
        m_marks[c] = new QScatterSeries;
        m_marks[c]->setMarkerSize(12);
        m_marks[c]->setColor(Qt::red);
        for (QXYSeries* s : {static_cast<QXYSeries*>(m_lines[c]), static_cast<QXYSeries*>(m_marks[c])}) {
            chart->addSeries(s);
            s->attachAxis(m_x[c]);
            s->attachAxis(m_y[c]);
        }
    }

    m_rooflinePane = new QWidget(right);
    auto* rooflineLayout = new QVBoxLayout(m_rooflinePane);
    rooflineLayout->setContentsMargins(0, 0, 0, 0);
    m_rooflineView = charts::makeChartView(tr("Roofline of this CPU"), m_rooflinePane);
    QChart* roof = m_rooflineView->chart();
    roof->legend()->hide();
    m_rooflineX = charts::makeAxis(tr("FLOP/byte"), true);
    m_rooflineY = charts::makeAxis(tr("GFLOP/s"), true);
    roof->addAxis(m_rooflineX, Qt::AlignBottom);
    roof->addAxis(m_rooflineY, Qt::AlignLeft);
    m_peakLine = new QLineSeries;
    m_peakLine->setName(tr("peak FP32"));
    m_peakLine->setPen(QPen(QColor(200, 60, 30), 2));
    m_memoryLine = new QLineSeries;
    m_memoryLine->setName(tr("memory bandwidth"));
    m_memoryLine->setPen(QPen(QColor(30, 90, 200), 2));
    m_trialPoints = new QScatterSeries;
    m_trialPoints->setName(tr("trials"));
    m_trialPoints->setMarkerSize(7);
    m_trialPoints->setColor(QColor(90, 90, 90));
    m_selectedPoint = new QScatterSeries;
    m_selectedPoint->setName(tr("selected"));
    m_selectedPoint->setMarkerSize(12);
    m_selectedPoint->setColor(Qt::red);
    for (QXYSeries* s : {static_cast<QXYSeries*>(m_peakLine), static_cast<QXYSeries*>(m_memoryLine),
                         static_cast<QXYSeries*>(m_trialPoints), static_cast<QXYSeries*>(m_selectedPoint)}) {
        roof->addSeries(s);
        s->attachAxis(m_rooflineX);
        s->attachAxis(m_rooflineY);
    }
    rooflineLayout->addWidget(m_rooflineView, 1);
    m_rooflineNote = new QLabel(m_rooflinePane);
    m_rooflineNote->setWordWrap(true);
    rooflineLayout->addWidget(m_rooflineNote);
    m_rooflinePane->hide();
    m_splitter->addWidget(right);
    m_splitter->setSizes({420, 780});
    m_chartMinimumHeight = m_curves[0]->minimumHeight();
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
    connect(m_analysis, &QFutureWatcherBase::finished, this, &HardwareView::analysisDone);
    connect(m_peaksWatcher, &QFutureWatcherBase::finished, this, [this] {
        m_cpuPeaks = m_peaksWatcher->result();
        if (m_cpu)
            showCpu();
        emit cpuPeaksReady();
    });
    showFeatures(QString());
}

void HardwareView::setDeviceName(const QString& name) {
    showFeatures(name);
    chooseDefaultGpu();
    setCurvesShown(true);
    m_rooflinePane->hide();
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
    std::vector<std::pair<QString, QString>> rows = {
        {tr("logical CPUs"), QString::number(cpu.logicalCpus)},
        {tr("physical cores"), QString::number(cpu.physicalCores)},
    };
    for (const CpuCache& cache : cpu.caches)
        rows.emplace_back(tr("L%1 cache").arg(cache.level), cacheText(cache));
    int width = simdWidthBits(cpu.simd);
    rows.emplace_back(tr("SIMD width"), width > 0 ? tr("%1 bits").arg(width) : tr("unknown"));
    QStringList flags;
    for (const std::string& flag : cpu.simd)
        flags << QString::fromStdString(flag);
    rows.emplace_back(tr("SIMD flags"), flags.isEmpty() ? tr("none found") : flags.join(' '));
    rows.emplace_back(
        tr("max clock"),
        cpu.maxClockMHz > 0
            ? tr("%1 MHz (%2)").arg(cpu.maxClockMHz, 0, 'f', 0).arg(QString::fromStdString(cpu.clockSource))
            : tr("unknown"));
    const std::optional<double> peak = cpu.peakGflops();
    rows.emplace_back(tr("peak FP32"),
                      peak ? tr("%1 (%2 cores x %3 GHz x %4 lanes x %5 FLOP per lane and cycle)")
                                 .arg(gflopsText(*peak))
                                 .arg(cpu.physicalCores)
                                 .arg(cpu.maxClockMHz / 1000, 0, 'g', 3)
                                 .arg(cpu.fp32Lanes())
                                 .arg(cpu.flopsPerLanePerCycle())
                           : tr("unknown (needs the cores, the clock and a known SIMD width)"));
    rows.emplace_back(tr("memory bandwidth"),
                      cpu.memoryBandwidthGBs ? tr("%1 GB/s (%2)")
                                                   .arg(*cpu.memoryBandwidthGBs, 0, 'f', 1)
                                                   .arg(QString::fromStdString(cpu.memoryBandwidthSource))
                      : m_cpuPeaks ? QString::fromStdString(cpu.memoryBandwidthSource)
                                   : tr("measuring..."));
    fillFeatures(rows);
    chooseDefaultGpu();
    m_rooflinePane->show();
    fitLabels();
    markDirty();
    refreshIfNeeded();
}

void HardwareView::fillFeatures(const std::vector<std::pair<QString, QString>>& rows) {
    m_features->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        m_features->setItem(r, 0, featureItem(rows[static_cast<std::size_t>(r)].first));
        m_features->setItem(r, 1, featureItem(rows[static_cast<std::size_t>(r)].second));
    }
    fitFeatures();
}

// The feature column as wide as its longest name, but at most half the table, so values keep room.
void HardwareView::fitFeatures() {
    const int available = m_features->viewport()->width();
    int names = 0;
    for (int r = 0; r < m_features->rowCount(); ++r)
        if (const QTableWidgetItem* item = m_features->item(r, 0))
            names = std::max(names, m_features->fontMetrics().horizontalAdvance(item->text()));
    const int padding = 2 * (m_features->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 1) + 8;
    m_features->setColumnWidth(0, std::max(40, std::min(names + padding, available / 2)));
    m_features->resizeRowsToContents();
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
    fitFeatures();
    // After the layout has given the labels their new widths.
    QMetaObject::invokeMethod(this, &HardwareView::fitLabels, Qt::QueuedConnection);
}

// Wide: features left of a 2 x 2 grid of charts. Narrow: features above the charts, one chart per row,
// each tall enough to read (the dock scrolls down).
void HardwareView::arrange(bool narrow) {
    m_narrow = narrow;
    m_splitter->setOrientation(narrow ? Qt::Vertical : Qt::Horizontal);
    QWidget* cells[4] = {m_curves[0], m_curves[1], m_curves[2], m_rooflinePane};
    QChartView* charts[4] = {m_curves[0], m_curves[1], m_curves[2], m_rooflineView};
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
        gpu = findGpu(name.toStdString());
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
    const GpuSpec& g = *gpu;
    std::vector<std::pair<QString, QString>> rows = {
        {tr("compute capability"), QString::fromStdString(g.computeCapability()) + " (" +
                                       QString::fromStdString(g.architecture()) + ")"},
        {tr("SMs"), QString::number(g.smCount)},
        {tr("clock base / boost"), QString("%1 / %2 MHz").arg(g.baseClockMHz).arg(g.boostClockMHz)},
        {tr("memory"), QString("%1 GB %2").arg(g.memoryGB).arg(QString::fromStdString(g.memoryType))},
        {tr("bandwidth"), QString("%1 GB/s").arg(g.memoryBandwidthGBs)},
        {tr("peak FP32"), QString("%1 TFLOP/s").arg(g.fp32TFlops)},
        {tr("peak FP16 tensor"),
         g.fp16TensorTFlops > 0 ? QString("%1 TFLOP/s").arg(g.fp16TensorTFlops) : tr("none")},
        {tr("L2 cache"), bytes(static_cast<double>(g.l2Bytes))},
        {tr("registers per SM"), QString::number(g.registersPerSm)},
        {tr("registers per block / thread"),
         QString("%1 / %2").arg(g.registersPerBlock).arg(g.maxRegistersPerThread)},
        {tr("shared memory per SM"), bytes(static_cast<double>(g.sharedPerSm))},
        {tr("shared memory per block (opt-in)"),
         QString("%1 (%2)").arg(bytes(static_cast<double>(g.sharedPerBlock)),
                                bytes(static_cast<double>(g.sharedPerBlockOptin)))},
        {tr("threads per SM / block"), QString("%1 / %2").arg(g.maxThreadsPerSm).arg(g.maxThreadsPerBlock)},
        {tr("blocks per SM"), QString::number(g.maxBlocksPerSm)},
        {tr("warps per SM"), QString::number(g.maxWarpsPerSm())},
    };
    fillFeatures(rows);
}

void HardwareView::clearCurves() {
    for (int c = 0; c < 3; ++c) {
        m_lines[c]->clear();
        m_marks[c]->clear();
        charts::setRangeIfChanged(m_x[c], 0, 1);
    }
}

// cpu sessions show the occupancy curves only while they draw an analysis; GPU sessions always.
void HardwareView::setCurvesShown(bool shown) {
    for (QChartView* chart : m_curves)
        chart->setVisible(shown || !m_cpu);
}

void HardwareView::refresh() {
    refreshRoofline();
    showSelection();
    fitLabels();
}

// Word-wrapped labels as tall as their text at their width: splitters and the dock's scroll area ask
// widgets for their minimum height, which a wrapped label does not know by itself.
void HardwareView::fitLabels() {
    for (QLabel* label : {m_device, m_resources, m_rooflineNote}) {
        const int width = label->width() > 0 ? label->width() : label->sizeHint().width();
        // heightForWidth is -1 for an empty label.
        label->setMinimumHeight(std::max(0, label->heightForWidth(width)));
    }
    updateGeometry();
}

void HardwareView::showSelection() {
    const int row = data().selectedRow();
    if (row < 0 || row >= static_cast<int>(data().trials().size())) {
        m_wanted.clear();
        m_shown.reset();
        clearCurves();
        setCurvesShown(false);
        m_resources->setText(tr("Select a trial to see its resources and occupancy."));
        return;
    }
    const Trial& t = data().trials()[static_cast<std::size_t>(row)];
    const GpuSpec* chosen = GpuDatabase::builtin().find(analysisGpu().toStdString());
    if (!chosen) {
        m_wanted.clear();
        m_shown.reset();
        clearCurves();
        m_resources->setText(
            tr("The GPU database is empty: no GPU to analyse trial %1 for.").arg(t.number + 1));
        return;
    }
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
        m_resources->setText(
            tr("Trial %1 (measured on %11): %2 registers per thread, %3 shared memory per block, %4 threads "
               "per block.\nOccupancy %5% (%6 blocks, %7 of %8 warps per SM), limited by %9.%10")
                .arg(t.number + 1)
                .arg(kernel.registersPerThread)
                .arg(bytes(static_cast<double>(kernel.staticSharedBytes + dynamic)))
                .arg(*threads)
                .arg(o.occupancy * 100, 0, 'f', 1)
                .arg(o.activeBlocksPerSm)
                .arg(o.activeWarpsPerSm)
                .arg(o.maxWarpsPerSm)
                .arg(QString::fromStdString(o.limitText()))
                .arg(o.fits() ? QString() : " " + QString::fromStdString(o.reason))
                .arg(QString::fromStdString(gpu.name)));
    } catch (const std::exception& e) {
        clearCurves();
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
        m_wanted.clear();
        m_shown.reset();
        clearCurves();
        setCurvesShown(false);
        m_resources->setText(tr("Trial %1 cannot be analysed for %2: %3")
                                 .arg(t.number + 1)
                                 .arg(QString::fromStdString(gpu.name), why));
    };
    QString problem;
    const std::shared_ptr<const KernelSpec> spec = runSpec(&problem);
    if (!spec)
        return cannot(problem);
    if (!spec->variant("cuda"))
        return cannot(tr("kernel %1 has no CUDA variant.").arg(QString::fromStdString(spec->name)));
#ifndef TUNESCOPE_WITH_CUDA
    return cannot(tr(kNoNvrtc));
#endif
    Request request;
    request.spec = spec;
    request.datasetKernel = m_datasetKernels.count(data().info().kernel) > 0;
    request.size = runSize(*spec);
    request.parameters = data().parameters();
    request.config = t.config;
    request.gpu = gpu;
    request.key = QString("%1|%2|%3|%4")
                      .arg(QString::fromStdString(spec->name),
                           QString::fromStdString(formatProblemSize(*spec, request.size)),
                           configText(request.parameters, request.config), QString::fromStdString(gpu.id));
    m_wantedTrial = t.number + 1;
    if (auto done = m_results.find(request.key); done != m_results.end()) {
        m_wanted.clear();
        showAnalysis(done->second, m_wantedTrial);
        return;
    }
    m_wanted = request.key;
    m_shown.reset();
    clearCurves();
    m_resources->setText(tr("Analysing trial %1 for %2 (NVRTC compile, no GPU needed)...")
                             .arg(m_wantedTrial)
                             .arg(QString::fromStdString(gpu.name)));
    m_next = std::move(request);
    if (!m_analysis->isRunning())
        startAnalysis();
}

void HardwareView::startAnalysis() {
    if (!m_next)
        return;
    Request request = std::move(*m_next);
    m_next.reset();
    m_analysis->setFuture(QtConcurrent::run([request = std::move(request)] { return analyse(request); }));
}

void HardwareView::analysisDone() {
    HardwareAnalysis a = m_analysis->result();
    if (m_results.size() >= kMaxResults)
        m_results.clear();
    m_results[a.key] = a;
    startAnalysis(); // the request made while this one ran, if any
    if (a.key != m_wanted)
        return; // the selection or the GPU changed meanwhile
    m_wanted.clear();
    showAnalysis(a, m_wantedTrial);
    fitLabels();
    emit analysisShown();
}

void HardwareView::showAnalysis(const HardwareAnalysis& a, int trialNumber) {
    m_shown.reset();
    clearCurves();
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
        clearCurves();
        m_resources->setText(QString::fromUtf8(e.what()));
        return;
    }
    m_shown = a;
    setCurvesShown(true);
    const Occupancy& o = p.occupancy;
    QString text =
        tr("Trial %1 on %2 (static analysis: compiled by NVRTC for %3, no GPU needed): %4 registers per "
           "thread, %5 shared memory per block, %6 threads per block.\nOccupancy %7% (%8 blocks, %9 of %10 "
           "warps per SM), limited by %11.")
            .arg(trialNumber)
            .arg(gpu, QString::fromStdString(p.architecture))
            .arg(p.resources.registersPerThread)
            .arg(bytes(static_cast<double>(p.resources.staticSharedBytes + p.launch.dynamicSharedBytes)))
            .arg(threads)
            .arg(o.occupancy * 100, 0, 'f', 1)
            .arg(o.activeBlocksPerSm)
            .arg(o.activeWarpsPerSm)
            .arg(o.maxWarpsPerSm)
            .arg(QString::fromStdString(o.limitText()));
    if (!p.fits())
        text += " " + QString::fromStdString(p.unfitReason());
    if (p.resources.spills())
        text += tr(" It spills %1 B stored / %2 B loaded per thread.")
                    .arg(p.resources.spillStoreBytes)
                    .arg(p.resources.spillLoadBytes);
    if (!a.note.isEmpty())
        text += " " + a.note;
    if (!a.ignored.isEmpty())
        text += tr(" The CUDA variant has no %1 (not used).").arg(a.ignored.join(", "));
    m_resources->setText(text);
}

void HardwareView::drawCurves(const GpuSpec& gpu, const KernelResources& kernel, int threads,
                              std::int64_t dynamic) {
    OccupancyCalculator calculator(gpu);
    OccupancyCurves curves = OccupancyCurves::compute(calculator, kernel, threads, dynamic);
    const OccupancyCurve* list[3] = {&curves.threads, &curves.registers, &curves.sharedMemory};
    // Shared memory in KB: byte counts make tick labels too wide for a chart in a dock.
    const double scale[3] = {1.0, 1.0, 1.0 / 1024};
    for (int c = 0; c < 3; ++c) {
        QList<QPointF> points;
        double xMax = scale[c];
        for (const OccupancyPoint& p : list[c]->points) {
            points.push_back({p.x * scale[c], p.occupancy * 100});
            xMax = std::max(xMax, p.x * scale[c]);
        }
        m_lines[c]->replace(points);
        m_marks[c]->replace({QPointF(list[c]->marked.x * scale[c], list[c]->marked.occupancy * 100)});
        charts::setRangeIfChanged(m_x[c], 0, xMax);
    }
}

void HardwareView::refreshRoofline() {
    if (!m_cpu) {
        m_roofline.reset();
        return;
    }
    for (QXYSeries* s : {static_cast<QXYSeries*>(m_peakLine), static_cast<QXYSeries*>(m_memoryLine),
                         static_cast<QXYSeries*>(m_trialPoints), static_cast<QXYSeries*>(m_selectedPoint)})
        s->clear();
    QString problem;
    const std::shared_ptr<const KernelSpec> spec = runSpec(&problem);
    if (!spec) {
        m_roofline.reset();
        m_rooflineNote->setText(tr("No roofline: %1").arg(problem));
        return;
    }
    CpuInfo cpu = m_cpuPeaks ? *m_cpuPeaks : CpuInfo::query();
    if (!m_cpuPeaks)
        cpu.memoryBandwidthSource = "the memory bandwidth is being measured (a few tenths of a second)";
    try {
        m_roofline = Roofline::of(cpu, *spec, runSize(*spec), data().trials());
    } catch (const std::exception& e) {
        m_roofline.reset();
        m_rooflineNote->setText(tr("No roofline: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    const Roofline& r = *m_roofline;
    // The x range holds the kernel's intensity and the ridge, a decade either side.
    double xLow = 1e-2, xHigh = 1e2, yLow = 1, yHigh = 1e3;
    std::vector<double> xs, ys;
    if (r.intensity)
        xs.push_back(*r.intensity);
    if (r.ridge())
        xs.push_back(*r.ridge());
    for (const RooflinePoint& p : r.points)
        ys.push_back(p.gflops);
    if (r.peakGflops)
        ys.push_back(*r.peakGflops);
    if (!xs.empty()) {
        xLow = *std::min_element(xs.begin(), xs.end()) / 10;
        xHigh = *std::max_element(xs.begin(), xs.end()) * 10;
    }
    if (r.bandwidthGBs)
        ys.push_back(*r.bandwidthGBs * xLow);
    if (!ys.empty()) {
        yLow = *std::min_element(ys.begin(), ys.end()) / 2;
        yHigh = *std::max_element(ys.begin(), ys.end()) * 2;
    }
    charts::setRange(m_rooflineX, xLow, xHigh);
    charts::setRange(m_rooflineY, yLow, yHigh);
    const auto point = [this](double x, double y) {
        return charts::axisPoint(m_rooflineX, m_rooflineY, {x, y});
    };
    if (r.peakGflops) {
        const double from = r.ridge() ? *r.ridge() : xLow;
        m_peakLine->replace({point(from, *r.peakGflops), point(xHigh, *r.peakGflops)});
    }
    if (r.bandwidthGBs) {
        const double to = r.ridge() ? *r.ridge() : xHigh;
        m_memoryLine->replace({point(xLow, *r.bandwidthGBs * xLow), point(to, *r.bandwidthGBs * to)});
    }
    QList<QPointF> trials;
    for (const RooflinePoint& p : r.points)
        trials.push_back(point(p.intensity, p.gflops));
    m_trialPoints->replace(charts::decimate(trials, 2000));
    const int row = data().selectedRow();
    for (const RooflinePoint& p : r.points)
        if (static_cast<int>(p.row) == row)
            m_selectedPoint->replace({point(p.intensity, p.gflops)});
    QStringList notes;
    // The legend would not fit a narrow dock: the note names the lines by colour.
    if (r.peakGflops)
        notes << tr("red: peak FP32 %1 (cores x clock x SIMD lanes x FMA)").arg(gflopsText(*r.peakGflops));
    if (r.bandwidthGBs)
        notes << tr("blue: memory bandwidth %1 GB/s (%2)")
                     .arg(*r.bandwidthGBs, 0, 'f', 1)
                     .arg(QString::fromStdString(cpu.memoryBandwidthSource));
    if (r.intensity)
        notes << tr("dots: the trials (the selected one red) of %1 at %2, %3 FLOP/byte")
                     .arg(QString::fromStdString(spec->name),
                          QString::fromStdString(formatProblemSize(*spec, runSize(*spec))))
                     .arg(*r.intensity, 0, 'g', 3);
    QString text = notes.isEmpty() ? QString() : notes.join("; ") + ".";
    if (!r.problem.empty())
        text += " " + QString::fromStdString(r.problem);
    m_rooflineNote->setText(text.trimmed());
}

} // namespace ts::gui
