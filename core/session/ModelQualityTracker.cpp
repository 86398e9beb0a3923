#include "session/ModelQualityTracker.h"

#include "models/ModelQuality.h"

#include <algorithm>

namespace ts {

namespace {
constexpr std::size_t kTopK = 10;
constexpr std::size_t kMinimumTrials = 4;
} // namespace

void ModelQualityTracker::trialFinished(const Trial& trial) {
    if (!trial.predicted || trial.measurement.status != MeasureStatus::Ok)
        return;
    m_predicted.push_back(*trial.predicted);
    m_measured.push_back(trial.measurement.objective);
}

void ModelQualityTracker::progress(const SessionProgress& progress) {
    if (m_predicted.size() < kMinimumTrials)
        return;
    if (!m_points.empty() && m_points.back().predicted == m_predicted.size())
        return;
    std::size_t k = std::max<std::size_t>(1, std::min(kTopK, m_predicted.size() / 4));
    m_points.push_back({progress.evaluations, m_predicted.size(), spearman(m_predicted, m_measured),
                        topKRecall(m_predicted, m_measured, k)});
}

} // namespace ts
