#include "data/ComparisonCurves.h"

#include <cmath>

namespace ts::gui {

ComparisonCurves ComparisonCurves::compute(const CompareResult& result, const std::vector<double>& optima,
                                           std::int64_t horizon) {
    ComparisonCurves out;
    std::map<std::string, std::vector<const CompareRun*>> byStrategy;
    for (const CompareRun& run : result.runs)
        byStrategy[run.strategy].push_back(&run);
    auto length = static_cast<std::size_t>(std::max<std::int64_t>(0, horizon));
    for (const auto& [strategy, runs] : byStrategy) {
        Curve& curve = out.curves[strategy];
        curve.mean.assign(length, 0.0);
        curve.stdev.assign(length, 0.0);
        for (std::size_t t = 0; t < length; ++t) {
            double sum = 0, squares = 0;
            for (const CompareRun* run : runs) {
                double fraction = 0;
                if (!run->bestSoFar.empty() && run->dataset < optima.size()) {
                    double best = run->bestSoFar[std::min(t, run->bestSoFar.size() - 1)];
                    fraction = std::isfinite(best) && best > 0 ? optima[run->dataset] / best : 0.0;
                }
                sum += fraction;
                squares += fraction * fraction;
            }
            double n = static_cast<double>(runs.size());
            curve.mean[t] = sum / n;
            curve.stdev[t] = std::sqrt(std::max(0.0, squares / n - curve.mean[t] * curve.mean[t]));
        }
    }
    return out;
}

} // namespace ts::gui
