#pragma once

#include "kernels/KernelSpec.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace ts {

// What measuring a kernel for real (instead of replaying a dataset) needs beyond the strategy: the kernel,
// its size, the backend and the worker options. The CLI fills it from `tune` options, the GUI from its task
// panel; error messages name the CLI options, which the GUI's fields mirror.
struct KernelTuneOptions {
    std::string kernel;          // a name from the kernel catalog
    std::string kernelSpec;      // or a kernel.json file
    std::string size;            // size text; empty: the spec's defaults
    std::string backend = "cpu"; // or "cuda"
    double timeoutS = 10.0;
    int repeat = 7;
    double minRepeatMs = 20.0;
    double warmupMs = 20.0;
    bool flush = true;
    std::string cacheDir;   // empty: BuildCache::defaultDirectory()
    std::uint64_t seed = 0; // input fill; the session's seed

    bool active() const { return !kernel.empty() || !kernelSpec.empty(); }
};

// What resuming needs to measure a kernel session again, kept in SessionRecord::settings["kernel"]: the spec
// file (absolute), the size, the backend and the worker options.
nlohmann::json kernelSettings(const KernelTuneOptions& options);
KernelTuneOptions kernelOptionsFromSettings(const nlohmann::json& settings);

// Throws Error (one sentence naming the option) on a backend that is not a kernel backend or a worker option
// out of range.
void checkKernelOptions(const KernelTuneOptions& options);
// The kernel's spec, from the catalog or the file. Throws Error naming the kernel or the file.
KernelSpec loadKernelSpec(const KernelTuneOptions& options);
// The size text parsed against the spec (its defaults when empty). Throws Error naming the text.
ProblemSize kernelProblemSize(const KernelSpec& spec, const KernelTuneOptions& options);

} // namespace ts
