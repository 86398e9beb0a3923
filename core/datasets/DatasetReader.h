#pragma once

#include "datasets/Dataset.h"
#include "datasets/DatasetHeader.h"

#include <filesystem>

namespace ts {

// Reads a replay dataset, detecting the format from its content (Kernel Tuner cache JSON, T4 results,
// KTT output), plain or gzipped. Throws Error naming the file and the offending key or line.
Dataset readDataset(const std::filesystem::path& path);

// What a dataset is of, reading a Kernel Tuner cache only up to its records (any other file whole). Throws
// Error as readDataset does.
DatasetHeader readDatasetHeader(const std::filesystem::path& path);

Dataset readKernelTunerCache(const std::filesystem::path& path);
Dataset readT4Results(const std::filesystem::path& path);
Dataset readKttOutput(const std::filesystem::path& path);

} // namespace ts
