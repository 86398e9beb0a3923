#pragma once

#include "session/SessionObserver.h"

#include <vector>

namespace ts {

// The cost model's quality on configs it had not seen: every trial's prediction was made before the trial
// was measured. After each batch, over the Ok trials that carry a prediction so far, it records the
// Spearman rank correlation between predicted and measured time and the recall of the measured top-k among
// the predicted top-k (k = 10, or a quarter of the trials when fewer).
class ModelQualityTracker : public SessionObserver {
public:
    struct Point {
        std::int64_t evaluations = 0;
        std::size_t predicted = 0; // Ok trials with a prediction
        double spearman = 0.0;
        double topKRecall = 0.0;
    };

    void trialFinished(const Trial& trial) override;
    void progress(const SessionProgress& progress) override;

    const std::vector<Point>& points() const { return m_points; }

private:
    std::vector<double> m_predicted, m_measured;
    std::vector<Point> m_points;
};

} // namespace ts
