#pragma once

#include "hardware/GpuSpec.h"
#include "kernels/KernelSpec.h"
#include "datasets/Dataset.h"
#include "datasets/DatasetProfile.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace ts {

class NvrtcCompiler;

// Makes the static profile of a replay dataset: every config of its file is mapped onto a kernel spec's cuda
// space by parameter names and values (a spec parameter the dataset lacks keeps its default), compiled by
// NVRTC for one architecture (CudaStaticAnalyzer: in parallel, cached on disk by content) and its occupancy
// computed on one GPU of the database. Main thread only; the compiler may be shared.
class DatasetProfiler {
public:
    struct Options {
        std::string architecture; // empty: the GPU's own (CudaStaticAnalyzer::targetArchitecture)
        std::size_t threads = 0;  // compile threads; 0: one per core
        // Every config of the dataset's product (what a search in product mode may propose), not only
        // those in its file: a strategy's hardware features then cover the product-mode domain.
        bool product = false;
        // When > 0: only a uniform sample of this many of those configs, drawn with `seed` (a partial
        // profile, for a quick look at a large space; a search with option `hardware` needs every config).
        std::size_t sample = 0;
        std::uint64_t seed = 1;
        // Called after each batch with (configs done, configs in all); may be empty.
        std::function<void(std::size_t, std::size_t)> progress;
        // Polled between batches; true stops the profile (profile() then returns nullopt).
        std::function<bool()> stopRequested;
    };

    // Throws Error with one sentence when the dataset has a parameter the spec lacks, or the spec has no
    // cuda variant.
    DatasetProfiler(const Dataset& dataset, const KernelSpec& spec, GpuSpec gpu);

    // The GPU a dataset was measured on, from the database. Throws Error with one sentence naming the
    // dataset when its device is an AMD GPU or is not in the database.
    static GpuSpec datasetGpu(const Dataset& dataset);

    // nullopt when stopped. Throws Error naming the config when one of the dataset's configs has a value
    // the spec does not list.
    std::optional<DatasetProfile> profile(NvrtcCompiler& compiler, const Options& options) const;

private:
    const Dataset& m_dataset;
    const KernelSpec& m_spec;
    GpuSpec m_gpu;
};

} // namespace ts
