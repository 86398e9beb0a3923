#pragma once

#include "analysis/Comparison.h"

#include <map>
#include <string>
#include <vector>

namespace ts::gui {

// What the comparison chart draws, computed from core's runs: per strategy and evaluation t (1-based), the
// mean and the standard deviation over all its runs (every dataset and seed) of the fraction of optimum
// (optimum / best found after t evaluations; 0 while nothing valid was found).
struct ComparisonCurves {
    struct Curve {
        std::vector<double> mean;
        std::vector<double> stdev;
    };
    std::map<std::string, Curve> curves;

    static ComparisonCurves compute(const CompareResult& result, const std::vector<double>& optima,
                                    std::int64_t horizon);
};

} // namespace ts::gui
