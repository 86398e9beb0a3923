#pragma once

#include "hardware/GpuSpec.h"
#include "hardware/StaticProfile.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace ts::gui {

// One static analysis of a trial's config for one GPU (StaticAnalysisRunner runs it off the UI thread).
struct HardwareAnalysis {
    QString key;     // kernel, problem size, config and GPU: what was asked
    QString problem; // one sentence when the config could not be analysed
    GpuSpec gpu;
    std::optional<StaticProfile> profile; // when analysed (compiled or not)
    QString note;                         // the analyzer's note (another architecture's code), if any
    QStringList ignored;                  // the trial's parameters the cuda variant does not have
};

} // namespace ts::gui
