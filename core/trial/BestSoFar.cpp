#include "trial/BestSoFar.h"

namespace ts {

BestSoFar BestSoFar::of(std::span<const Trial> trials) {
    BestSoFar best;
    for (const Trial& trial : trials)
        best.add(trial.measurement);
    return best;
}

bool BestSoFar::add(MeasureStatus status, double objective) {
    const bool improved = status == MeasureStatus::Ok && objective < best();
    if (improved)
        m_improvements.push_back({m_curve.size(), objective});
    m_curve.push_back(best());
    return improved;
}

std::optional<std::size_t> BestSoFar::bestPosition() const {
    if (m_improvements.empty())
        return std::nullopt;
    return m_improvements.back().position;
}

} // namespace ts
