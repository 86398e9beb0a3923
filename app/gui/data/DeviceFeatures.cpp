#include "data/DeviceFeatures.h"

#include <QObject>
#include <QStringList>

namespace ts::gui {

namespace {

QString cacheText(const CpuCache& cache) {
    QString text = QString("%1 %2").arg(DeviceFeatures::bytesText(static_cast<double>(cache.bytes)),
                                        QString::fromStdString(cache.type));
    if (cache.sharedByCpus > 1)
        text += QObject::tr(", shared by %1 CPUs").arg(cache.sharedByCpus);
    return text;
}

QString peakText(const CpuInfo& cpu) {
    const std::optional<double> peak = cpu.peakGflops();
    if (!peak)
        return QObject::tr("unknown (needs the cores, the clock and a known SIMD width)");
    return QObject::tr("%1 (%2 cores x %3 GHz x %4 lanes x %5 FLOP per lane and cycle)")
        .arg(DeviceFeatures::gflopsText(*peak))
        .arg(cpu.physicalCores)
        .arg(cpu.maxClockMHz / 1000, 0, 'g', 3)
        .arg(cpu.fp32Lanes())
        .arg(cpu.flopsPerLanePerCycle());
}

QString bandwidthText(const CpuInfo& cpu, bool measured) {
    if (cpu.memoryBandwidthGBs)
        return QObject::tr("%1 GB/s (%2)")
            .arg(*cpu.memoryBandwidthGBs, 0, 'f', 1)
            .arg(QString::fromStdString(cpu.memoryBandwidthSource));
    return measured ? QString::fromStdString(cpu.memoryBandwidthSource) : QObject::tr("measuring...");
}

} // namespace

QString DeviceFeatures::bytesText(double value) {
    if (value >= 1 << 20)
        return QString("%1 MB").arg(value / (1 << 20), 0, 'g', 4);
    if (value >= 1 << 10)
        return QString("%1 KB").arg(value / (1 << 10), 0, 'g', 4);
    return QString("%1 B").arg(value);
}

QString DeviceFeatures::gflopsText(double value) {
    return value >= 1000 ? QString("%1 TFLOP/s").arg(value / 1000, 0, 'g', 4)
                         : QString("%1 GFLOP/s").arg(value, 0, 'g', 4);
}

std::vector<DeviceFeatures::Row> DeviceFeatures::ofGpu(const GpuSpec& g) {
    const auto bytes = [](std::int64_t value) { return bytesText(static_cast<double>(value)); };
    return {
        {QObject::tr("compute capability"), QString::fromStdString(g.computeCapability()) + " (" +
                                                QString::fromStdString(g.architecture()) + ")"},
        {QObject::tr("SMs"), QString::number(g.smCount)},
        {QObject::tr("clock base / boost"), QString("%1 / %2 MHz").arg(g.baseClockMHz).arg(g.boostClockMHz)},
        {QObject::tr("memory"),
         QString("%1 GB %2").arg(g.memoryGB).arg(QString::fromStdString(g.memoryType))},
        {QObject::tr("bandwidth"), QString("%1 GB/s").arg(g.memoryBandwidthGBs)},
        {QObject::tr("peak FP32"), QString("%1 TFLOP/s").arg(g.fp32TFlops)},
        {QObject::tr("peak FP16 tensor"),
         g.fp16TensorTFlops > 0 ? QString("%1 TFLOP/s").arg(g.fp16TensorTFlops) : QObject::tr("none")},
        {QObject::tr("L2 cache"), bytes(g.l2Bytes)},
        {QObject::tr("registers per SM"), QString::number(g.registersPerSm)},
        {QObject::tr("registers per block / thread"),
         QString("%1 / %2").arg(g.registersPerBlock).arg(g.maxRegistersPerThread)},
        {QObject::tr("shared memory per SM"), bytes(g.sharedPerSm)},
        {QObject::tr("shared memory per block (opt-in)"),
         QString("%1 (%2)").arg(bytes(g.sharedPerBlock), bytes(g.sharedPerBlockOptin))},
        {QObject::tr("threads per SM / block"),
         QString("%1 / %2").arg(g.maxThreadsPerSm).arg(g.maxThreadsPerBlock)},
        {QObject::tr("blocks per SM"), QString::number(g.maxBlocksPerSm)},
        {QObject::tr("warps per SM"), QString::number(g.maxWarpsPerSm())},
    };
}

std::vector<DeviceFeatures::Row> DeviceFeatures::ofCpu(const CpuInfo& cpu, bool measured) {
    std::vector<Row> rows = {
        {QObject::tr("logical CPUs"), QString::number(cpu.logicalCpus)},
        {QObject::tr("physical cores"), QString::number(cpu.physicalCores)},
    };
    for (const CpuCache& cache : cpu.caches)
        rows.emplace_back(QObject::tr("L%1 cache").arg(cache.level), cacheText(cache));
    // The widest vector registers the SIMD flags promise: 32-bit lanes of core's count.
    const int width = 32 * cpu.fp32Lanes();
    rows.emplace_back(QObject::tr("SIMD width"),
                      width > 0 ? QObject::tr("%1 bits").arg(width) : QObject::tr("unknown"));
    QStringList flags;
    for (const std::string& flag : cpu.simd)
        flags << QString::fromStdString(flag);
    rows.emplace_back(QObject::tr("SIMD flags"),
                      flags.isEmpty() ? QObject::tr("none found") : flags.join(' '));
    rows.emplace_back(QObject::tr("max clock"), cpu.maxClockMHz > 0
                                                    ? QObject::tr("%1 MHz (%2)")
                                                          .arg(cpu.maxClockMHz, 0, 'f', 0)
                                                          .arg(QString::fromStdString(cpu.clockSource))
                                                    : QObject::tr("unknown"));
    rows.emplace_back(QObject::tr("peak FP32"), peakText(cpu));
    rows.emplace_back(QObject::tr("memory bandwidth"), bandwidthText(cpu, measured));
    return rows;
}

} // namespace ts::gui
