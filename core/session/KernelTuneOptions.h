#pragma once

#include "kernels/KernelSpec.h"
#include "worker/TimingSettings.h"

#include <string>

namespace ts {

// What measuring a kernel for real (instead of replaying a dataset) needs beyond the rest of the session's
// plan: the kernel, its size and the worker's measurement options. Part of SessionPlan, which says on which
// backend (cpu or cuda) and with which seed.
struct KernelTuneOptions {
    std::string kernel;            // a name from the kernel catalog
    std::string kernelSpec;        // or a kernel.json file
    std::string size;              // size text; empty: the spec's defaults
    double timeoutS = 10.0;        // seconds one config may take to verify and measure
    worker::TimingSettings timing; // warm-up, samples per config, minimum sample time, cache flush
    std::string cacheDir;          // empty: BuildCache::defaultDirectory()

    bool active() const { return !kernel.empty() || !kernelSpec.empty(); }
};

// The kernel's spec, from the catalog or the file. Throws Error naming the kernel or the file.
KernelSpec loadKernelSpec(const KernelTuneOptions& options);
// The size text parsed against the spec (its defaults when empty). Throws Error naming the text.
ProblemSize kernelProblemSize(const KernelSpec& spec, const KernelTuneOptions& options);

} // namespace ts
