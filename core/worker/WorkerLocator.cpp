#include "worker/WorkerLocator.h"

#include "util/Error.h"

#include <cstdlib>
#include <fmt/format.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace ts::worker {

namespace {

constexpr const char* kWorkerName = "tunescope-worker";

bool isExecutable(const std::filesystem::path& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

} // namespace

std::filesystem::path currentExecutable() {
    std::error_code ec;
    auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : path;
}

std::filesystem::path locateWorker() {
    std::vector<std::filesystem::path> candidates;
    if (auto self = currentExecutable(); !self.empty()) {
        candidates.push_back(self.parent_path() / kWorkerName);
        candidates.push_back(self.parent_path().parent_path() / "worker" / kWorkerName);
    }
    if (const char* env = std::getenv("TUNESCOPE_WORKER"); env && *env)
        candidates.emplace_back(env);
    for (const auto& candidate : candidates)
        if (isExecutable(candidate))
            return candidate.lexically_normal();
    if (const char* path = std::getenv("PATH"); path) {
        std::string list(path);
        std::size_t start = 0;
        while (start <= list.size()) {
            std::size_t end = list.find(':', start);
            std::string dir = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
            if (!dir.empty() && isExecutable(std::filesystem::path(dir) / kWorkerName))
                return std::filesystem::path(dir) / kWorkerName;
            if (end == std::string::npos)
                break;
            start = end + 1;
        }
    }
    throw Error(fmt::format("The measuring program {} was not found next to this program, in ../worker/, in "
                            "$TUNESCOPE_WORKER or on PATH; build the tunescope-worker target or set "
                            "TUNESCOPE_WORKER to its path.",
                            kWorkerName));
}

} // namespace ts::worker
