#pragma once

#include "hardware/CpuInfo.h"
#include "hardware/GpuSpec.h"

#include <QString>
#include <utility>
#include <vector>

namespace ts::gui {

// The rows of the Hardware view's features table (name, value), computed from core's GPU database entry or
// CpuInfo; the table only shows them. Also the byte and FLOP/s texts the view's notes use.
class DeviceFeatures {
public:
    using Row = std::pair<QString, QString>;

    static std::vector<Row> ofGpu(const GpuSpec& gpu);
    // `measured`: the memory bandwidth was measured (CpuInfo::queryWithBandwidth), not pending.
    static std::vector<Row> ofCpu(const CpuInfo& cpu, bool measured);

    // "48 KB", "1.5 MB", "512 B".
    static QString bytesText(double bytes);
    // "35.6 TFLOP/s", "812 GFLOP/s".
    static QString gflopsText(double gflops);
};

} // namespace ts::gui
