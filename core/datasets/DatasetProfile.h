#pragma once

#include "datasets/Dataset.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

namespace ts {

// One config of a dataset as NVRTC compiled it for the dataset's GPU (a row of its static profile).
struct ConfigProfile {
    bool compiled = false; // false: NVRTC rejected the config; the other fields are then 0
    int registers = 0;
    std::int64_t spillStores = 0; // bytes
    std::int64_t spillLoads = 0;
    std::int64_t staticSharedBytes = 0;
    std::int64_t dynamicSharedBytes = 0;
    std::int64_t threadsPerBlock = 0;
    std::int64_t blocks = 0; // blocks in the grid; 0: not recorded (profiles made before it was)
    double occupancy = 0.0;  // in [0, 1] on the profile's GPU
    std::string limitedBy;   // Occupancy::limitText()

    bool operator==(const ConfigProfile&) const = default;
};

// The static profile of a replay dataset: every config of its file compiled with NVRTC for one architecture
// (registers, spills, shared memory, launch shape, occupancy on one GPU of the database). Made by
// `tunescope-cli analyze --dataset` (cuda/DatasetProfiler), stored as a companion file next to the dataset
// (companionPath) and read by the replay backend, which attaches a config's values as its trial's metrics.
// The header binds it to the dataset's bytes (datasetHash), so a profile of another dataset is refused.
struct DatasetProfile {
    static constexpr const char* kFormat = "tunescope-dataset-profile-1";
    // The largest companion file read: a profile row takes about 250 bytes, so this holds 250,000 configs.
    static constexpr std::uintmax_t kMaxFileBytes = 64u << 20;

    std::string dataset;     // the dataset's file name
    std::string datasetHash; // SourceHash::ofFile of the dataset
    std::string kernelSpec;  // the spec's name
    std::string sourceHash;  // of the spec's cuda source and the files beside it
    std::string nvrtcVersion;
    std::string architecture;                     // sm_XX
    std::string gpu;                              // GPU database id the occupancy is computed on
    std::map<std::string, ConfigProfile> configs; // by the dataset's config key

    // "D.profile" for a dataset "D.json.gz" or "D.json", next to it (JSON, but not named *.json, so that
    // folders listing datasets do not take it for one).
    static std::filesystem::path companionPath(const std::filesystem::path& dataset);

    std::string toJson() const;
    // Reads the profile at `path` made for `dataset`. Throws Error with one sentence naming the file when it
    // cannot be read, is larger than kMaxFileBytes, is not a profile, holds a wrong value or a config the
    // dataset does not have, or was made for another dataset.
    static DatasetProfile read(const std::filesystem::path& path, const Dataset& dataset);
    // The dataset's companion profile, or null when there is none; throws as read() when there is a bad one.
    static std::shared_ptr<const DatasetProfile> companionOf(const Dataset& dataset);

    // The metrics a trial of the config carries (the names CudaBackend and the hardware view use); empty
    // for a config that did not compile.
    static std::map<std::string, double> metrics(const ConfigProfile& config);
};

} // namespace ts
