#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ts {

// What a replay dataset is of, without its records: enough to tell whether it measured the same kernel (its
// name and parameter names) elsewhere (another device or problem size).
struct DatasetHeader {
    std::filesystem::path path;
    std::string kernelName;
    std::string deviceName;
    std::string problemSize;                 // as JSON text, e.g. "[4096, 4096]"
    std::vector<std::string> parameterNames; // sorted

    // Same kernel name and the same parameter names.
    bool sameKernel(const DatasetHeader& other) const {
        return kernelName == other.kernelName && parameterNames == other.parameterNames;
    }
    // The same kernel measured on the same device at the same size: the same measurement, whatever the file.
    bool sameMeasurement(const DatasetHeader& other) const {
        return sameKernel(other) && deviceName == other.deviceName && problemSize == other.problemSize;
    }
};

} // namespace ts
