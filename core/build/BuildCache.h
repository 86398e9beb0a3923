#pragma once

#include "build/HostCompiler.h"

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// What to build: one source into one shared object.
struct BuildRequest {
    std::filesystem::path source;
    std::vector<std::string> flags; // the variant's flags and the parameter macros (-DNAME=value)
};

struct BuildResult {
    bool ok = false;
    std::filesystem::path library; // the shared object, when ok
    std::string log;               // the compiler's output (the whole log when it failed)
    double compileMs = 0.0;        // time the compiler took when this entry was first built
    bool cacheHit = false;         // served from the cache: no compiler ran now
    std::string hash;
};

// Hit and miss counts since construction; savedMs sums the original compile times of the hits.
struct BuildCacheStats {
    std::int64_t hits = 0;
    std::int64_t misses = 0;
    double savedMs = 0.0;
    double compileMs = 0.0; // compiler time spent on the misses
    double hitRate() const {
        return hits + misses > 0 ? static_cast<double>(hits) / double(hits + misses) : 0.0;
    }
};

// Shared objects on disk, named by a content hash of everything the build depends on: the source, the header
// files next to it (*.h, *.hpp, *.hh, *.inc), the base flags, the request's flags, the compiler's path and
// version. A repeated build is served from disk, failures included (their log is kept), so a config that does
// not compile is not compiled again either. Entries are written to a temporary name and renamed, so
// concurrent builders (threads or processes) never see half an entry. Thread-safe.
class BuildCache {
public:
    // Throws Error naming the directory when it cannot be created.
    BuildCache(HostCompiler compiler, std::filesystem::path directory = defaultDirectory());

    // $TUNESCOPE_CACHE_DIR, else $XDG_CACHE_HOME/tunescope/builds, else ~/.cache/tunescope/builds.
    static std::filesystem::path defaultDirectory();

    const std::filesystem::path& directory() const { return m_directory; }
    const HostCompiler& compiler() const { return m_compiler; }

    std::string hash(const BuildRequest& request) const;
    // Builds (or finds) the shared object. Throws Error only when the source cannot be read or the cache
    // cannot be written; a compile error is a result with ok == false.
    BuildResult build(const BuildRequest& request);

    BuildCacheStats stats() const;

private:
    std::optional<BuildResult> lookup(const std::string& hash) const;

    HostCompiler m_compiler;
    std::filesystem::path m_directory;
    std::atomic<std::int64_t> m_hits{0};
    std::atomic<std::int64_t> m_misses{0};
    std::atomic<double> m_savedMs{0.0};
    std::atomic<double> m_compileMs{0.0};
};

} // namespace ts
