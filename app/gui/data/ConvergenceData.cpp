#include "data/ConvergenceData.h"

#include <cmath>

namespace ts::gui {

namespace {

template <typename XOf> QList<QPointF> steps(const std::vector<double>& bestSoFar, XOf xOf) {
    QList<QPointF> points;
    double current = INFINITY;
    for (std::size_t row = 0; row < bestSoFar.size(); ++row) {
        double best = bestSoFar[row];
        if (!std::isfinite(best) || best == current)
            continue;
        double x = xOf(row);
        if (std::isfinite(current))
            points.push_back({x, current});
        points.push_back({x, best});
        current = best;
    }
    if (!points.isEmpty() && points.back().x() < xOf(bestSoFar.size() - 1))
        points.push_back({xOf(bestSoFar.size() - 1), current});
    return points;
}

} // namespace

QList<QPointF> ConvergenceData::byEvaluations(const std::vector<double>& bestSoFar) {
    return steps(bestSoFar, [](std::size_t row) { return static_cast<double>(row + 1); });
}

QList<QPointF> ConvergenceData::byTime(const std::vector<Trial>& trials,
                                       const std::vector<double>& bestSoFar) {
    return steps(bestSoFar, [&trials](std::size_t row) { return trials[row].elapsedS; });
}

} // namespace ts::gui
