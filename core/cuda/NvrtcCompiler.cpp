#include "cuda/NvrtcCompiler.h"

#include "build/BuildCache.h"
#include "build/ContentHash.h"
#include "cuda/NamedMacros.h"
#include "cuda/NvrtcProgram.h"
#include "cuda/PtxasInfo.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace ts {

namespace {

// Bumped when the layout of an entry or the meaning of its hash changes.
constexpr const char* kCacheFormat = "tunescope-cubin-1";

// Files a source may include from its folder; .opencl: CLBlast's kernels, compiled through cl_to_cuda.h.
bool isHeader(const std::filesystem::path& file) {
    const std::string ext = file.extension().string();
    return ext == ".h" || ext == ".cuh" || ext == ".hpp" || ext == ".hh" || ext == ".inc" || ext == ".opencl";
}

std::string readText(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw Error(fmt::format("The CUDA source {} cannot be read.", file.string()));
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeAtomically(const std::filesystem::path& target, const std::string& bytes) {
    std::ostringstream name;
    name << target.string() << ".tmp." << ::getpid() << "." << std::this_thread::get_id();
    const std::filesystem::path temporary = name.str();
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out.flush())
            throw Error(fmt::format("The cubin cache entry {} cannot be written.", temporary.string()));
    }
    std::error_code ec;
    std::filesystem::rename(temporary, target, ec);
    if (ec)
        throw Error(
            fmt::format("The cubin cache entry {} cannot be written: {}.", target.string(), ec.message()));
}

// The toolkit's headers (mma.h, cuda_fp16.h): $CUDA_HOME, $CUDA_PATH, the toolkit Tunescope was built with,
// /usr/local/cuda. Empty when none has them.
const std::string& toolkitIncludeDirectory() {
    static const std::string directory = [] {
        std::vector<std::filesystem::path> candidates;
        for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
            if (const char* value = std::getenv(variable); value && *value)
                candidates.push_back(std::filesystem::path(value) / "include");
#ifdef TUNESCOPE_CUDA_INCLUDE_DIR
        candidates.emplace_back(TUNESCOPE_CUDA_INCLUDE_DIR);
#endif
        candidates.emplace_back("/usr/local/cuda/include");
        for (const auto& candidate : candidates) {
            std::error_code ec;
            if (std::filesystem::exists(candidate / "cuda_fp16.h", ec))
                return std::filesystem::weakly_canonical(candidate, ec).string();
        }
        return std::string();
    }();
    return directory;
}

const std::string& nvrtcVersion() {
    static const std::string version = NvrtcProgram::version();
    return version;
}

// NVRTC 12.9 and later keep their own cache of compiled programs in the driver's compute cache when a driver
// is loaded; a hit returns the cubin without running ptxas, so the log has no resource report. Our cubin
// cache keeps the report with the cubin, so NVRTC's is turned off.
bool nvrtcCaches() {
    int major = 0, minor = 0;
    if (std::sscanf(nvrtcVersion().c_str(), "%d.%d", &major, &minor) != 2)
        return false;
    return major > 12 || (major == 12 && minor >= 9);
}

} // namespace

NvrtcCompiler::NvrtcCompiler(std::filesystem::path cacheDirectory) : m_directory(std::move(cacheDirectory)) {
    if (m_directory.empty())
        return;
    std::error_code ec;
    std::filesystem::create_directories(m_directory, ec);
    if (ec || !std::filesystem::is_directory(m_directory))
        throw Error(fmt::format("The cubin cache directory {} cannot be created{}.", m_directory.string(),
                                ec ? ": " + ec.message() : ""));
}

std::filesystem::path NvrtcCompiler::cubinPath(const std::string& hash) const {
    return m_directory.empty() ? std::filesystem::path{} : m_directory / (hash + ".cubin");
}

std::filesystem::path NvrtcCompiler::defaultCacheDirectory() {
    return BuildCache::defaultDirectory() / "cuda";
}

std::vector<std::string> NvrtcCompiler::baseOptions(const CudaBuildRequest& request) {
    static const std::regex architecture(R"(sm_\d+[af]?)");
    if (!std::regex_match(request.architecture, architecture))
        throw Error(
            fmt::format("The GPU architecture \"{}\" is not of the form sm_90.", request.architecture));
    std::vector<std::string> options{
        "--gpu-architecture=" + request.architecture, "--std=c++17",       "-Xptxas", "-v",
        "-I" + request.source.parent_path().string(), "-DTUNESCOPE_CUDA=1"};
    if (!toolkitIncludeDirectory().empty())
        options.push_back("-I" + toolkitIncludeDirectory());
    static const bool caches = nvrtcCaches();
    if (caches)
        options.push_back("--no-cache");
    return options;
}

NvrtcCompiler::Job NvrtcCompiler::prepare(const CudaBuildRequest& request) const {
    Job job;
    job.source = readText(request.source);
    std::vector<std::filesystem::path> headers;
    std::error_code ec;
    for (const auto& item : std::filesystem::directory_iterator(request.source.parent_path(), ec))
        if (item.is_regular_file() && isHeader(item.path()))
            headers.push_back(item.path());
    std::sort(headers.begin(), headers.end());
    std::vector<std::string> texts{job.source};
    for (const auto& header : headers)
        texts.push_back(readText(header));
    job.options = baseOptions(request);
    const std::size_t base = job.options.size();
    job.options.insert(job.options.end(), request.flags.begin(), request.flags.end());
    for (std::string& macro : macrosNamedIn(request.macros, texts))
        job.options.push_back(std::move(macro));

    ContentHash h;
    h.add(kCacheFormat).add(nvrtcVersion()).add(request.entry);
    h.add(job.source);
    for (std::size_t i = 0; i < headers.size(); ++i)
        h.add(headers[i].filename().string()).add(texts[i + 1]);
    h.add(static_cast<std::int64_t>(job.options.size()));
    for (std::size_t i = 0; i < job.options.size(); ++i)
        if (i >= base ||
            job.options[i].rfind("-I", 0) != 0) // the folder's contents are hashed, not its location
            h.add(job.options[i]);
    job.key = h.hex();
    return job;
}

std::string NvrtcCompiler::hash(const CudaBuildRequest& request) const {
    return prepare(request).key;
}

std::optional<CudaBuildResult> NvrtcCompiler::lookup(const std::string& hash) const {
    if (m_directory.empty())
        return std::nullopt;
    std::ifstream meta(m_directory / (hash + ".json"));
    if (!meta)
        return std::nullopt;
    nlohmann::json doc = parseBoundedJson(meta, (m_directory / (hash + ".json")).string());
    if (doc.is_discarded() || !doc.contains("ok"))
        return std::nullopt;
    CudaBuildResult result;
    result.hash = hash;
    result.ok = doc.at("ok").get<bool>();
    result.log = doc.value("log", std::string());
    result.compileMs = doc.value("compile_ms", 0.0);
    result.cacheHit = true;
    if (result.ok) {
        std::ifstream in(m_directory / (hash + ".cubin"), std::ios::binary);
        if (!in)
            return std::nullopt;
        result.cubin.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        if (result.cubin.empty())
            return std::nullopt;
    }
    return result;
}

void NvrtcCompiler::store(const CudaBuildResult& result) const {
    if (m_directory.empty())
        return;
    if (result.ok)
        writeAtomically(m_directory / (result.hash + ".cubin"),
                        std::string(result.cubin.begin(), result.cubin.end()));
    // The JSON is written last: its presence marks a complete entry.
    nlohmann::json doc{{"ok", result.ok}, {"log", result.log}, {"compile_ms", result.compileMs}};
    writeAtomically(m_directory / (result.hash + ".json"), doc.dump());
}

CudaBuildResult NvrtcCompiler::compile(const CudaBuildRequest& request) {
    return build(request, prepare(request));
}

CudaBuildResult NvrtcCompiler::build(const CudaBuildRequest& request, const Job& job) {
    std::optional<CudaBuildResult> result = lookup(job.key);
    if (result) {
        ++m_hits;
    } else {
        ++m_misses;
        const auto start = std::chrono::steady_clock::now();
        NvrtcProgram program(job.source, request.source.filename().string());
        result.emplace();
        result->hash = job.key;
        result->ok = program.compile(job.options);
        result->log = program.log();
        if (result->ok)
            result->cubin = program.cubin();
        result->compileMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        store(*result);
    }
    if (result->ok) {
        result->resources = parsePtxasInfo(result->log, request.entry);
        if (!result->resources)
            result->log +=
                fmt::format("\nNVRTC compiled {}, but its log has no ptxas report for the entry {}, "
                            "so its resources are unknown.",
                            request.source.filename().string(), request.entry);
    }
    return std::move(*result);
}

namespace {

// Calls task(i) for i in [0, count) on `threads` threads; the first exception is rethrown after all have
// ended.
template <typename Task> void parallelFor(std::size_t count, std::size_t threads, Task task) {
    std::atomic<std::size_t> next{0};
    std::mutex failureMutex;
    std::exception_ptr failure;
    auto work = [&] {
        for (std::size_t i = next++; i < count; i = next++) {
            try {
                task(i);
            } catch (...) {
                std::lock_guard lock(failureMutex);
                if (!failure)
                    failure = std::current_exception();
            }
        }
    };
    {
        std::vector<std::jthread> pool;
        for (std::size_t t = 1; t < std::min(threads, count); ++t)
            pool.emplace_back(work);
        work();
    }
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace

std::vector<CudaBuildResult> NvrtcCompiler::compileAll(std::span<const CudaBuildRequest> requests,
                                                       std::size_t threads) {
    if (threads == 0)
        threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<Job> jobs(requests.size());
    parallelFor(requests.size(), threads, [&](std::size_t i) { jobs[i] = prepare(requests[i]); });
    // The first request of each hash is built; the others take its result.
    std::unordered_map<std::string, std::size_t> first;
    std::vector<std::size_t> unique;
    for (std::size_t i = 0; i < jobs.size(); ++i)
        if (first.emplace(jobs[i].key, i).second)
            unique.push_back(i);
    std::vector<CudaBuildResult> results(requests.size());
    parallelFor(unique.size(), threads, [&](std::size_t u) {
        const std::size_t i = unique[u];
        results[i] = build(requests[i], jobs[i]);
    });
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const std::size_t built = first.at(jobs[i].key);
        if (built == i)
            continue;
        results[i] = results[built];
        results[i].cacheHit = true;
        ++m_hits;
    }
    return results;
}

} // namespace ts
