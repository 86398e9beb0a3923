#include "data/WorkloadHistory.h"

namespace ts::gui {

void WorkloadHistory::add(const WorkloadProgress& progress, std::size_t failedTasks) {
    Round round;
    round.trials = progress.trials;
    round.endToEndMs = progress.endToEndMs;
    round.complete = progress.tasksWithoutBest <= failedTasks;
    round.perTask = progress.trialsPerTask;
    round.perTask.resize(m_tasks, 0);
    m_rounds.push_back(std::move(round));
    if (progress.oracleMs)
        m_oracle = progress.oracleMs;
}

QList<QPointF> WorkloadHistory::endToEnd() const {
    QList<QPointF> points;
    for (const Round& round : m_rounds)
        if (round.complete)
            points.push_back(QPointF(static_cast<double>(round.trials), round.endToEndMs));
    return points;
}

std::vector<QList<QPointF>> WorkloadHistory::stackedTrials() const {
    std::vector<QList<QPointF>> curves(m_tasks);
    for (QList<QPointF>& curve : curves)
        curve.push_back(QPointF(0.0, 0.0));
    for (const Round& round : m_rounds) {
        double sum = 0.0;
        for (std::size_t k = 0; k < m_tasks; ++k) {
            sum += static_cast<double>(round.perTask[k]);
            curves[k].push_back(QPointF(static_cast<double>(round.trials), sum));
        }
    }
    return curves;
}

} // namespace ts::gui
