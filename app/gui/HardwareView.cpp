#include "HardwareView.h"

#include "ChartSupport.h"
#include "RunData.h"

#include "hardware/CpuInfo.h"
#include "hardware/GpuDatabase.h"
#include "hardware/OccupancyCurves.h"

#include <QChart>
#include <QChartView>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cctype>

namespace ts::gui {

namespace {

std::string normalised(const std::string& text) {
    std::string out;
    for (char c : text)
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The database entry for a device name as datasets write it ("NVIDIA GeForce RTX 3090", "A100-PCIE-40GB"):
// an exact id/name/alias match first, else the longest id or alias contained in the name.
const GpuSpec* findGpu(const std::string& name) {
    const GpuDatabase& db = GpuDatabase::builtin();
    if (const GpuSpec* exact = db.find(name))
        return exact;
    std::string wanted = normalised(name);
    const GpuSpec* best = nullptr;
    std::size_t bestLength = 0;
    for (const GpuSpec& gpu : db.gpus()) {
        std::vector<std::string> keys = gpu.aliases;
        keys.push_back(gpu.id);
        for (const std::string& key : keys) {
            std::string k = normalised(key);
            if (k.size() > bestLength && wanted.find(k) != std::string::npos) {
                best = &gpu;
                bestLength = k.size();
            }
        }
    }
    return best;
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

} // namespace

HardwareView::HardwareView(RunData& data, QWidget* parent) : RunView(data, parent) {
    auto* layout = new QVBoxLayout(this);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    layout->addWidget(splitter, 1);
    auto* left = new QWidget(splitter);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_device = new QLabel(tr("No device."), left);
    m_device->setWordWrap(true);
    leftLayout->addWidget(m_device);
    m_features = new QTableWidget(0, 2, left);
    m_features->setHorizontalHeaderLabels({tr("feature"), tr("value")});
    m_features->verticalHeader()->hide();
    m_features->horizontalHeader()->setStretchLastSection(true);
    m_features->setEditTriggers(QAbstractItemView::NoEditTriggers);
    leftLayout->addWidget(m_features, 1);
    m_resources = new QLabel(tr("Select a trial to see its resources and occupancy."), left);
    m_resources->setWordWrap(true);
    leftLayout->addWidget(m_resources);
    splitter->addWidget(left);

    auto* right = new QWidget(splitter);
    auto* grid = new QGridLayout(right);
    grid->setContentsMargins(0, 0, 0, 0);
    const QString titles[3] = {tr("Occupancy vs threads per block"), tr("Occupancy vs registers per thread"),
                               tr("Occupancy vs shared memory per block")};
    const QString units[3] = {tr("threads per block"), tr("registers per thread"),
                              tr("shared memory (bytes)")};
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
        grid->addWidget(m_curves[c], c / 2, c % 2);
    }
    splitter->addWidget(right);
    splitter->setSizes({420, 780});
    connect(&data, &RunData::selectionChanged, this, [this] {
        markDirty();
        refreshIfNeeded();
    });
    connect(&data, &RunData::resetDone, this, &HardwareView::markDirty);
    showFeatures(QString());
}

void HardwareView::setDeviceName(const QString& name) {
    showFeatures(name);
    markDirty();
    refreshIfNeeded();
}

void HardwareView::showCpu() {
    m_gpu.reset();
    m_cpu = true;
    const CpuInfo cpu = CpuInfo::query();
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
    m_features->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        m_features->setItem(r, 0, new QTableWidgetItem(rows[static_cast<std::size_t>(r)].first));
        m_features->setItem(r, 1, new QTableWidgetItem(rows[static_cast<std::size_t>(r)].second));
    }
    m_features->resizeColumnToContents(0);
    markDirty();
    refreshIfNeeded();
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
    m_features->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        m_features->setItem(r, 0, new QTableWidgetItem(rows[static_cast<std::size_t>(r)].first));
        m_features->setItem(r, 1, new QTableWidgetItem(rows[static_cast<std::size_t>(r)].second));
    }
    m_features->resizeColumnToContents(0);
}

void HardwareView::clearCurves() {
    for (int c = 0; c < 3; ++c) {
        m_lines[c]->clear();
        m_marks[c]->clear();
        charts::setRangeIfChanged(m_x[c], 0, 1);
    }
}

void HardwareView::refresh() {
    int row = data().selectedRow();
    if (row < 0) {
        clearCurves();
        m_resources->setText(tr("Select a trial to see its resources and occupancy."));
        return;
    }
    const Trial& t = data().trials()[static_cast<std::size_t>(row)];
    auto registers = trialMetric(t, "registers");
    auto threads = threadsPerBlock(t, data().parameters());
    if (m_cpu) {
        clearCurves();
        m_resources->setText(
            tr("Trial %1 ran on the CPU: occupancy applies to GPUs only.").arg(t.number + 1));
        return;
    }
    if (!registers || !threads) {
        clearCurves();
        m_resources->setText(
            tr("Trial %1 carries no register count and block size (replay datasets record times "
               "only; the CUDA backend records them), so its occupancy is unknown.")
                .arg(t.number + 1));
        return;
    }
    if (!m_gpu || !OccupancyCalculator::available()) {
        clearCurves();
        m_resources->setText(
            tr("Trial %1: %2 registers, %3 threads per block; the device is not in the GPU database.")
                .arg(t.number + 1)
                .arg(*registers)
                .arg(*threads));
        return;
    }
    KernelResources kernel;
    kernel.registersPerThread = static_cast<int>(*registers);
    kernel.staticSharedBytes = static_cast<std::int64_t>(trialMetric(t, "shared_bytes").value_or(0.0));
    auto dynamic = static_cast<std::int64_t>(trialMetric(t, "dynamic_shared_bytes").value_or(0.0));
    try {
        OccupancyCalculator calculator(*m_gpu);
        OccupancyCurves curves = OccupancyCurves::compute(calculator, kernel, *threads, dynamic);
        const OccupancyCurve* list[3] = {&curves.threads, &curves.registers, &curves.sharedMemory};
        for (int c = 0; c < 3; ++c) {
            QList<QPointF> points;
            double xMax = 1;
            for (const OccupancyPoint& p : list[c]->points) {
                points.push_back({p.x, p.occupancy * 100});
                xMax = std::max(xMax, p.x);
            }
            m_lines[c]->replace(points);
            m_marks[c]->replace({QPointF(list[c]->marked.x, list[c]->marked.occupancy * 100)});
            charts::setRangeIfChanged(m_x[c], 0, xMax);
        }
        const Occupancy& o = curves.current;
        m_resources->setText(
            tr("Trial %1: %2 registers per thread, %3 shared memory per block, %4 threads per block.\n"
               "Occupancy %5% (%6 blocks, %7 of %8 warps per SM), limited by %9.%10")
                .arg(t.number + 1)
                .arg(kernel.registersPerThread)
                .arg(bytes(static_cast<double>(kernel.staticSharedBytes + dynamic)))
                .arg(*threads)
                .arg(o.occupancy * 100, 0, 'f', 1)
                .arg(o.activeBlocksPerSm)
                .arg(o.activeWarpsPerSm)
                .arg(o.maxWarpsPerSm)
                .arg(QString::fromStdString(o.limitText()))
                .arg(o.fits() ? QString() : " " + QString::fromStdString(o.reason)));
    } catch (const std::exception& e) {
        clearCurves();
        m_resources->setText(QString::fromUtf8(e.what()));
    }
}

} // namespace ts::gui
