#pragma once

#include "data/HardwareAnalysis.h"

#include "hardware/KernelResources.h"
#include "hardware/Occupancy.h"

#include <QString>

namespace ts::gui {

// The Hardware view's sentence about the selected trial's resources and occupancy on a GPU: from the
// resources it was measured with, or from a static analysis of its config that compiled.
class OccupancySummary {
public:
    static QString measured(int trialNumber, const GpuSpec& gpu, const KernelResources& kernel, int threads,
                            std::int64_t dynamicSharedBytes, const Occupancy& occupancy);
    // `analysis` has a compiled profile.
    static QString analysed(int trialNumber, const HardwareAnalysis& analysis, int threads);
};

} // namespace ts::gui
