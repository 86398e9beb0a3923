#pragma once

#include "trial/Measurement.h"
#include "space/SearchSpace.h"

#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>

namespace ts {

// A brute-forced tuning space measured by someone else (Kernel Tuner cache, T4, KTT), for replay.
// space's valid set = the configs that appear in the file (measured or failed); in product mode a
// config absent from the file is an invalid evaluation.
struct Dataset {
    std::filesystem::path path;
    std::string format; // "kernel_tuner", "t4" or "ktt"
    std::string deviceName;
    std::string kernelName;
    std::string problemSize; // as JSON text, e.g. "[4096, 4096]"
    std::string objective;   // "time" (ms)
    SearchSpace space;
    std::unordered_map<SearchSpace::Index, Measurement> entries;

    // Fastest Ok objective; nullopt when no config is Ok.
    std::optional<double> optimum() const;
    std::size_t okCount() const;
    // Median of the Ok objectives.
    std::optional<double> medianObjective() const;
};

} // namespace ts
