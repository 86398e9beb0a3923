#pragma once

#include "trial/Trial.h"

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace ts {

// The best-so-far curve of a session: the best Ok objective after each evaluation, in evaluation order, and
// the evaluations that improved it. Only Ok results count, and only a strictly smaller objective improves
// (a NaN objective never does), so the first of equal bests is the best. Used by every view of a run: the
// comparison's scores, the window's convergence chart, the CLI's convergence list.
class BestSoFar {
public:
    struct Improvement {
        std::size_t position = 0; // the evaluation (from 0, in the order added) that improved the best
        double objective = 0.0;
    };

    static constexpr double kNothingYet = std::numeric_limits<double>::infinity();

    static BestSoFar of(std::span<const Trial> trials);

    // Adds the next evaluation; returns whether it improved the best.
    bool add(MeasureStatus status, double objective);
    bool add(const Measurement& measurement) { return add(measurement.status, measurement.objective); }

    // curve()[i]: the best after evaluation i; kNothingYet while no Ok result was added.
    const std::vector<double>& curve() const { return m_curve; }
    const std::vector<Improvement>& improvements() const { return m_improvements; }
    double best() const { return m_improvements.empty() ? kNothingYet : m_improvements.back().objective; }
    std::optional<std::size_t> bestPosition() const;
    std::size_t size() const { return m_curve.size(); }

private:
    std::vector<double> m_curve;
    std::vector<Improvement> m_improvements;
};

} // namespace ts
