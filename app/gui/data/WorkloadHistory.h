#pragma once

#include "workload/WorkloadProgress.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <optional>
#include <vector>

namespace ts::gui {

// One workload run's rounds, as the Workload view's charts draw them ("compute data, then draw"): plain
// points, testable without pixels. UI thread only.
class WorkloadHistory {
public:
    explicit WorkloadHistory(QString label = {}, std::size_t tasks = 0)
        : m_label(std::move(label)), m_tasks(tasks) {}

    // `failedTasks`: how many tasks of positive weight had failed by then (they never get a best).
    void add(const WorkloadProgress& progress, std::size_t failedTasks = 0);

    const QString& label() const { return m_label; }
    std::size_t taskCount() const { return m_tasks; }
    bool empty() const { return m_rounds.empty(); }
    std::int64_t trials() const { return m_rounds.empty() ? 0 : m_rounds.back().trials; }
    std::optional<double> oracleMs() const { return m_oracle; }

    // Weighted end-to-end latency (ms) against total trials, from the first round after which every task of
    // positive weight has a best or has failed (before that the sum leaves out tasks still to be measured).
    QList<QPointF> endToEnd() const;
    // Trials spent per task against total trials, stacked: entry k is the sum of tasks 0..k, one point per
    // round (and the origin), so that area k lies between curves k-1 and k.
    std::vector<QList<QPointF>> stackedTrials() const;

private:
    struct Round {
        std::int64_t trials = 0;
        double endToEndMs = 0.0;
        bool complete = false; // every task of positive weight has a best or has failed
        std::vector<std::int64_t> perTask;
    };
    QString m_label;
    std::size_t m_tasks;
    std::vector<Round> m_rounds;
    std::optional<double> m_oracle;
};

} // namespace ts::gui
