#pragma once

#include "datasets/DatasetHeader.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ts {

// The replay datasets Tunescope knows without being told: those it ships, and those a user adds, found by
// the headers of the files in a few folders (never by their names). A warm start takes from here the
// measurements of the same kernel made elsewhere.
class DatasetCatalog {
public:
    // The folders searched, in order: the bundled datasets ($TUNESCOPE_RESOURCES/datasets, else the source
    // tree's resources/datasets), the folders of $TUNESCOPE_DATASET_PATH (colon-separated), and the user data
    // folder's tunescope/datasets.
    static std::vector<std::filesystem::path> searchPath();

    // Reads the header of every .json and .json.gz file below the folders (subfolders included, at most
    // kMaxFiles files); a file that is no dataset, or unreadable, is left out and named in skipped().
    explicit DatasetCatalog(std::vector<std::filesystem::path> roots = searchPath());

    const std::vector<DatasetHeader>& datasets() const { return m_datasets; }
    // "FILE: why" for each file left out.
    const std::vector<std::string>& skipped() const { return m_skipped; }

    // The datasets of target's kernel (same kernel name and parameter names) measured elsewhere: never the
    // target's file or another file of the same measurement (device and size), and each measurement once.
    std::vector<DatasetHeader> sourcesFor(const DatasetHeader& target) const;

    static constexpr std::size_t kMaxFiles = 1000;

private:
    void scan(const std::filesystem::path& root);

    std::vector<DatasetHeader> m_datasets;
    std::vector<std::string> m_skipped;
};

} // namespace ts
