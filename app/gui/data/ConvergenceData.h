#pragma once

#include "trial/Trial.h"

#include <QList>
#include <QPointF>
#include <vector>

namespace ts::gui {

// The convergence curves as plain data (computed, then drawn): best-so-far as a step line, one point per
// improvement plus the last evaluation, so 10,000 trials give a few dozen points.
struct ConvergenceData {
    // x = evaluations (1-based), y = best ms. Empty until the first Ok trial.
    static QList<QPointF> byEvaluations(const std::vector<double>& bestSoFar);
    // x = wall time (s since the session started), y = best ms.
    static QList<QPointF> byTime(const std::vector<Trial>& trials, const std::vector<double>& bestSoFar);
};

} // namespace ts::gui
