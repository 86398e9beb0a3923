#include "data/OccupancySummary.h"

#include "data/DeviceFeatures.h"

#include <QObject>

namespace ts::gui {

QString OccupancySummary::measured(int trialNumber, const GpuSpec& gpu, const KernelResources& kernel,
                                   int threads, std::int64_t dynamic, const Occupancy& o) {
    return QObject::tr("Trial %1 (measured on %11): %2 registers per thread, %3 shared memory per block, %4 "
                       "threads per block.\nOccupancy %5% (%6 blocks, %7 of %8 warps per SM), limited by "
                       "%9.%10")
        .arg(trialNumber)
        .arg(kernel.registersPerThread)
        .arg(DeviceFeatures::bytesText(static_cast<double>(kernel.staticSharedBytes + dynamic)))
        .arg(threads)
        .arg(o.occupancy * 100, 0, 'f', 1)
        .arg(o.activeBlocksPerSm)
        .arg(o.activeWarpsPerSm)
        .arg(o.maxWarpsPerSm)
        .arg(QString::fromStdString(o.limitText()))
        .arg(o.fits() ? QString() : " " + QString::fromStdString(o.reason))
        .arg(QString::fromStdString(gpu.name));
}

QString OccupancySummary::analysed(int trialNumber, const HardwareAnalysis& a, int threads) {
    const StaticProfile& p = *a.profile;
    const Occupancy& o = p.occupancy;
    QString text =
        QObject::tr("Trial %1 on %2 (static analysis: compiled by NVRTC for %3, no GPU needed): %4 registers "
                    "per thread, %5 shared memory per block, %6 threads per block.\nOccupancy %7% (%8 "
                    "blocks, %9 of %10 warps per SM), limited by %11.")
            .arg(trialNumber)
            .arg(QString::fromStdString(a.gpu.name), QString::fromStdString(p.architecture))
            .arg(p.resources.registersPerThread)
            .arg(DeviceFeatures::bytesText(
                static_cast<double>(p.resources.staticSharedBytes + p.launch.dynamicSharedBytes)))
            .arg(threads)
            .arg(o.occupancy * 100, 0, 'f', 1)
            .arg(o.activeBlocksPerSm)
            .arg(o.activeWarpsPerSm)
            .arg(o.maxWarpsPerSm)
            .arg(QString::fromStdString(o.limitText()));
    if (!p.fits())
        text += " " + QString::fromStdString(p.unfitReason());
    if (p.resources.spills())
        text += QObject::tr(" It spills %1 B stored / %2 B loaded per thread.")
                    .arg(p.resources.spillStoreBytes)
                    .arg(p.resources.spillLoadBytes);
    if (!a.note.isEmpty())
        text += " " + a.note;
    if (!a.ignored.isEmpty())
        text += QObject::tr(" The CUDA variant has no %1 (not used).").arg(a.ignored.join(", "));
    return text;
}

} // namespace ts::gui
