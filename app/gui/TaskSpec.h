#pragma once

#include "session/KernelTuneOptions.h"
#include "space/SpaceMode.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ts::gui {

// What the task panel asks for: the session's strategy, options, stop conditions and space mode, as core
// types. Zero for a stop condition means "not set". Backend "replay" replays the chosen dataset; "cpu" or
// "cuda" measure the kernel of `kernel` for real (kernel.backend is then the same).
struct TaskSpec {
    std::string backend = "replay";
    KernelTuneOptions kernel;             // the kernel, size and worker options of a real kernel session
    std::vector<std::string> constraints; // extra constraints narrowing a kernel's space
    std::string strategy = "random_sample";
    std::map<std::string, std::string> options;
    std::int64_t budget = 100;
    double timeLimitS = 0.0;
    std::int64_t patience = 0;
    double targetMs = 0.0;
    std::uint64_t seed = 0;
    SpaceMode mode = SpaceMode::Constrained;
    std::size_t batchSize = 8;
    bool stochastic = false;
    // xgb starts from the earlier sessions of the same kernel in the records database (transfer learning).
    bool transfer = false;

    bool measuresKernel() const { return backend != "replay"; }
};

} // namespace ts::gui
