#pragma once

#include "hardware/KernelResources.h"

#include <atomic>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ts {

// One CUDA build: a kernel source compiled by NVRTC for one real architecture.
struct CudaBuildRequest {
    std::filesystem::path source;
    std::string entry;               // the extern "C" __global__ function whose resources are reported
    std::string architecture;        // "sm_90"
    std::vector<std::string> flags;  // the variant's extra options, passed as they are
    std::vector<std::string> macros; // parameter macros (-DNAME=value); those no source names are left out
};

struct CudaBuildResult {
    bool ok = false;
    std::vector<char> cubin; // when ok
    std::string log;         // NVRTC's log: the errors when it failed, the ptxas report when it compiled
    std::optional<KernelResources> resources; // from the ptxas report, when ok
    double compileMs = 0.0;                   // NVRTC time when the entry was first built
    bool cacheHit = false;
    std::string hash;
};

// Compiles kernel sources to cubins with NVRTC (no GPU needed) and parses ptxas' resource report. Results,
// failures included, are cached on disk by a content hash of the source, the headers next to it (*.h,
// *.cuh, *.hpp, *.inc, *.opencl), the options, the architecture and NVRTC's version, so a config is compiled
// once per target. Parameter macros that neither the source nor those files name are left out of the build
// and the hash (macrosNamedIn), so configs that differ only in them share one cubin. Entries are written to a
// temporary name and renamed (safe across threads and processes). Thread-safe; compileAll() compiles in
// parallel.
class NvrtcCompiler {
public:
    // An empty directory means no disk cache. Throws Error when the directory cannot be created.
    explicit NvrtcCompiler(std::filesystem::path cacheDirectory = defaultCacheDirectory());

    // <build cache directory (see BuildCache::defaultDirectory)>/cuda.
    static std::filesystem::path defaultCacheDirectory();
    // The options every build gets: architecture, C++17, -Xptxas -v, and on the include path the source's
    // folder and the toolkit's headers (for <mma.h>, <cuda_fp16.h>).
    static std::vector<std::string> baseOptions(const CudaBuildRequest& request);

    // Names the request's cache entry (and cubin). Throws Error when the source cannot be read.
    std::string hash(const CudaBuildRequest& request) const;
    // Throws Error when the source cannot be read, the architecture is not of the form sm_XX or NVRTC
    // rejects an option; a compile error is a result with ok == false.
    CudaBuildResult compile(const CudaBuildRequest& request);
    // Results in request order; requests with the same hash are built once. `threads` 0 means one per
    // hardware thread. Errors (as compile()) are rethrown after every started build has finished.
    std::vector<CudaBuildResult> compileAll(std::span<const CudaBuildRequest> requests,
                                            std::size_t threads = 0);

    const std::filesystem::path& directory() const { return m_directory; }
    // Where a successful build's cubin lies on disk (empty without a disk cache).
    std::filesystem::path cubinPath(const std::string& hash) const;

    std::int64_t hits() const { return m_hits.load(); }
    std::int64_t misses() const { return m_misses.load(); }

private:
    // A request's source text, the options NVRTC gets and its hash, read once for both.
    struct Job {
        std::string source;
        std::vector<std::string> options;
        std::string key;
    };
    Job prepare(const CudaBuildRequest& request) const;
    CudaBuildResult build(const CudaBuildRequest& request, const Job& job);
    std::optional<CudaBuildResult> lookup(const std::string& hash) const;
    void store(const CudaBuildResult& result) const;

    std::filesystem::path m_directory;
    std::atomic<std::int64_t> m_hits{0};
    std::atomic<std::int64_t> m_misses{0};
};

} // namespace ts
