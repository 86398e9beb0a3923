#pragma once

#include "hardware/GpuSpec.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// The GPU database (resources/hardware/gpus.json): the GPUs Tunescope can analyse without having them.
// A value type; read once and share by const reference. Thread-safe for concurrent reads.
class GpuDatabase {
public:
    GpuDatabase() = default;
    explicit GpuDatabase(std::vector<GpuSpec> gpus);

    // Reads and checks the file. Throws Error naming the file and the problem (missing file, bad JSON,
    // a GPU lacking a field or with a non-positive limit, duplicate ids or aliases).
    static GpuDatabase read(const std::filesystem::path& file);
    // The database shipped with Tunescope: $TUNESCOPE_RESOURCES/hardware/gpus.json when that environment
    // variable is set, otherwise <source dir>/resources/hardware/gpus.json. Read once, then cached.
    static const GpuDatabase& builtin();
    static std::filesystem::path builtinPath();

    const std::vector<GpuSpec>& gpus() const { return m_gpus; }
    // By id, name or alias, ignoring case, spaces, '-' and '_' ("h100", "H100-SXM", "H100_SXM").
    const GpuSpec* find(const std::string& name) const;
    // The GPU of a device name as runtimes and datasets write it ("NVIDIA GeForce RTX 3090",
    // "A100-PCIE-40GB"): find's exact match first, else the longest id or alias contained in the name,
    // comparing letters and digits only ("A100-PCIE-40GB" is the A100, not the A10); null when none.
    const GpuSpec* match(const std::string& deviceName) const;
    // Like find, but throws Error listing the known ids when there is no such GPU.
    const GpuSpec& get(const std::string& name) const;
    // Comma-separated ids, for messages and --help.
    std::string idList() const;

private:
    std::vector<GpuSpec> m_gpus;
};

} // namespace ts
