#pragma once

#include "analysis/Comparison.h"
#include "util/OutputFile.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ts::cli {

// The scores of a comparison as JSON (per dataset and per strategy, with the random-sampling expectation).
nlohmann::json toJson(const CompareResult& result, const CompareSettings& settings,
                      const std::vector<std::shared_ptr<const Dataset>>& datasets);

// Writes toJson() to the output and commits it; throws Error naming the output when it cannot be written.
void writeJson(OutputFile& output, const CompareResult& result, const CompareSettings& settings,
               const std::vector<std::shared_ptr<const Dataset>>& datasets);

// The table `compare` and `score` print: fraction of optimum per dataset and budget, the exact expectation of
// random sampling, and the mean over datasets with the methodology score.
void printTable(const CompareResult& result, const CompareSettings& settings,
                const std::vector<std::shared_ptr<const Dataset>>& datasets);

} // namespace ts::cli
