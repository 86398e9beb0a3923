#pragma once

#include "running/WorkloadRunner.h"

#include "store/WorkloadRecord.h"
#include "workload/WorkloadPlan.h"

#include <QAbstractTableModel>
#include <optional>
#include <vector>

namespace ts::gui {

// The tasks of the workload the view shows, one row each: name, kernel (or dataset), size, weight, trials,
// best time, share of the weighted end-to-end time (weight x best / the sum over tasks with a best), status
// and session. Filled from the plan, then from the runner's signals; UI thread only.
class WorkloadTaskModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Task, Kernel, Size, Weight, Trials, Best, Share, Status, Session, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole;        // numbers for the numeric columns
    static constexpr int kSessionRole = Qt::UserRole + 1; // the task's session id (qint64), or null

    explicit WorkloadTaskModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    // Every task pending, with no trials.
    void setPlan(const WorkloadPlan& plan);
    void setTaskSession(int task, std::int64_t session);
    void setTaskFailed(int task, const QString& error);
    void applyUpdate(const WorkloadUpdate& update);
    // The statuses and errors as recorded when the workload ended (tasks that stopped on their own are done).
    void setRecordedStatuses(const WorkloadRecord& record);

    struct Row {
        QString name, kernel, size, status = "pending", error;
        double weight = 1.0;
        std::int64_t trials = 0;
        double best = 0.0; // ms; +inf before the task's first correct trial
        std::optional<std::int64_t> session;
    };
    const std::vector<Row>& rows() const { return m_rows; }
    // weight x best of a task over the sum of those of the tasks with a best; null without a best.
    std::optional<double> share(int task) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rowChanged(int task);

    std::vector<Row> m_rows;
};

} // namespace ts::gui
