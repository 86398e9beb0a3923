#include "build/BuildCache.h"

#include "build/ContentHash.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace ts {

namespace {

// Bumped when the layout of an entry or the meaning of its hash changes.
constexpr const char* kCacheFormat = "tunescope-build-1";

bool isHeader(const std::filesystem::path& file) {
    static const std::vector<std::string> extensions{".h", ".hpp", ".hh", ".inc", ".cuh"};
    return std::find(extensions.begin(), extensions.end(), file.extension().string()) != extensions.end();
}

void addAtomic(std::atomic<double>& total, double value) {
    double current = total.load();
    while (!total.compare_exchange_weak(current, current + value)) {
    }
}

// A name no other thread or process uses at the same time.
std::filesystem::path temporaryName(const std::filesystem::path& target) {
    std::ostringstream suffix;
    suffix << ".tmp." << ::getpid() << "." << std::this_thread::get_id();
    return target.string() + suffix.str();
}

void writeAtomically(const std::filesystem::path& target, const std::string& text) {
    auto temporary = temporaryName(target);
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush())
            throw Error(fmt::format("Cannot write the build cache entry {}.", temporary.string()));
    }
    std::error_code ec;
    std::filesystem::rename(temporary, target, ec);
    if (ec)
        throw Error(fmt::format("Cannot write the build cache entry {}: {}.", target.string(), ec.message()));
}

} // namespace

BuildCache::BuildCache(HostCompiler compiler, std::filesystem::path directory)
    : m_compiler(std::move(compiler)), m_directory(std::move(directory)) {
    std::error_code ec;
    std::filesystem::create_directories(m_directory, ec);
    if (ec || !std::filesystem::is_directory(m_directory))
        throw Error(fmt::format("The build cache directory {} cannot be created{}.", m_directory.string(),
                                ec ? ": " + ec.message() : ""));
}

std::filesystem::path BuildCache::defaultDirectory() {
    if (const char* dir = std::getenv("TUNESCOPE_CACHE_DIR"); dir && *dir)
        return dir;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::filesystem::path(xdg) / "tunescope" / "builds";
    const char* home = std::getenv("HOME");
    return std::filesystem::path(home && *home ? home : "/tmp") / ".cache" / "tunescope" / "builds";
}

std::string BuildCache::hash(const BuildRequest& request) const {
    ContentHash h;
    h.add(kCacheFormat).add(m_compiler.program()).add(m_compiler.version());
    for (const std::string& f : HostCompiler::baseFlags())
        h.add(f);
    h.add(static_cast<std::int64_t>(request.flags.size()));
    for (const std::string& f : request.flags)
        h.add(f);
    h.add(request.source.filename().string()).addFile(request.source);
    std::vector<std::filesystem::path> headers;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(request.source.parent_path(), ec))
        if (entry.is_regular_file() && isHeader(entry.path()))
            headers.push_back(entry.path());
    std::sort(headers.begin(), headers.end());
    for (const auto& header : headers)
        h.add(header.filename().string()).addFile(header);
    return h.hex();
}

std::optional<BuildResult> BuildCache::lookup(const std::string& hash) const {
    std::ifstream in(m_directory / (hash + ".json"));
    if (!in)
        return std::nullopt;
    nlohmann::json meta = parseBoundedJson(in, (m_directory / (hash + ".json")).string());
    if (meta.is_discarded() || !meta.is_object())
        return std::nullopt;
    BuildResult result;
    result.ok = meta.value("ok", false);
    result.log = meta.value("log", std::string());
    result.compileMs = meta.value("compile_ms", 0.0);
    result.hash = hash;
    result.cacheHit = true;
    if (result.ok) {
        result.library = m_directory / (hash + ".so");
        if (!std::filesystem::exists(result.library))
            return std::nullopt;
    }
    return result;
}

BuildResult BuildCache::build(const BuildRequest& request) {
    const std::string key = hash(request);
    if (auto cached = lookup(key)) {
        ++m_hits;
        addAtomic(m_savedMs, cached->compileMs);
        return *cached;
    }
    ++m_misses;
    const auto library = m_directory / (key + ".so");
    const auto temporary = temporaryName(library);
    CommandResult compiled = m_compiler.compile(request.source, temporary, request.flags);
    addAtomic(m_compileMs, compiled.elapsedMs);
    BuildResult result;
    result.hash = key;
    result.compileMs = compiled.elapsedMs;
    result.log = compiled.output;
    result.ok = compiled.succeeded();
    if (!result.ok && compiled.signal != 0)
        result.log += fmt::format("\n(the compiler was killed by signal {})", compiled.signal);
    std::error_code ec;
    if (result.ok) {
        std::filesystem::rename(temporary, library, ec);
        if (ec)
            throw Error(
                fmt::format("Cannot store {} in the build cache: {}.", library.string(), ec.message()));
        result.library = library;
    } else {
        std::filesystem::remove(temporary, ec);
    }
    nlohmann::json meta{{"ok", result.ok},
                        {"compile_ms", result.compileMs},
                        {"log", result.log},
                        {"source", request.source.string()},
                        {"command", m_compiler.command(request.source, library, request.flags)}};
    // A compiler killed by a signal (out of memory, interrupted) says nothing about the config: not cached.
    if (result.ok || compiled.signal == 0)
        writeAtomically(m_directory / (key + ".json"), meta.dump(1));
    return result;
}

BuildCacheStats BuildCache::stats() const {
    return {m_hits.load(), m_misses.load(), m_savedMs.load(), m_compileMs.load()};
}

} // namespace ts
