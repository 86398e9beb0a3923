#include "datasets/DatasetCatalog.h"

#include "datasets/DatasetReader.h"
#include "util/DataFolders.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>

namespace ts {

namespace {

bool isDatasetFile(const std::filesystem::path& path) {
    const std::string name = path.filename().string();
    return name.ends_with(".json") || name.ends_with(".json.gz");
}

bool sameFile(const std::filesystem::path& a, const std::filesystem::path& b) {
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec);
}

} // namespace

std::vector<std::filesystem::path> DatasetCatalog::searchPath() {
    std::vector<std::filesystem::path> roots;
    if (const char* dir = std::getenv("TUNESCOPE_RESOURCES"); dir && *dir)
        roots.push_back(std::filesystem::path(dir) / "datasets");
    else
        roots.push_back(std::filesystem::path(TUNESCOPE_SOURCE_DIR) / "resources" / "datasets");
    for (std::filesystem::path& folder : pathListOf("TUNESCOPE_DATASET_PATH"))
        roots.push_back(std::move(folder));
    if (auto user = userDataFolder("datasets"); !user.empty())
        roots.push_back(std::move(user));
    return roots;
}

DatasetCatalog::DatasetCatalog(std::vector<std::filesystem::path> roots) {
    for (const std::filesystem::path& root : roots)
        scan(root);
}

void DatasetCatalog::scan(const std::filesystem::path& root) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    auto it = std::filesystem::recursive_directory_iterator(
        root, std::filesystem::directory_options::skip_permission_denied, ec);
    for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && isDatasetFile(it->path()) &&
            m_datasets.size() + m_skipped.size() + files.size() < kMaxFiles)
            files.push_back(it->path());
    std::sort(files.begin(), files.end()); // the same order on every machine
    for (const std::filesystem::path& file : files) {
        try {
            m_datasets.push_back(readDatasetHeader(file));
        } catch (const std::exception& error) {
            m_skipped.push_back(fmt::format("{}: {}", file.string(), error.what()));
        }
    }
}

std::vector<DatasetHeader> DatasetCatalog::sourcesFor(const DatasetHeader& target) const {
    std::vector<DatasetHeader> sources;
    for (const DatasetHeader& candidate : m_datasets) {
        if (!candidate.sameKernel(target) || candidate.sameMeasurement(target) ||
            sameFile(candidate.path, target.path))
            continue;
        if (std::none_of(sources.begin(), sources.end(),
                         [&](const DatasetHeader& taken) { return taken.sameMeasurement(candidate); }))
            sources.push_back(candidate);
    }
    return sources;
}

} // namespace ts
