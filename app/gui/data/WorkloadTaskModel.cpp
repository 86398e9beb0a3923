#include "data/WorkloadTaskModel.h"

#include "window/AppPalette.h"
#include "window/TimeFormat.h"

#include <QApplication>
#include <QBrush>
#include <QColor>
#include <QFileInfo>
#include <cmath>
#include <limits>

namespace ts::gui {

namespace {

QString kernelOf(const SessionPlan& plan) {
    if (!plan.kernel.kernel.empty())
        return QString::fromStdString(plan.kernel.kernel);
    if (!plan.kernel.kernelSpec.empty())
        return QFileInfo(QString::fromStdString(plan.kernel.kernelSpec)).fileName();
    return QFileInfo(QString::fromStdString(plan.dataset)).fileName();
}

QString sizeOf(const SessionPlan& plan) {
    if (!plan.measuresKernel())
        return QObject::tr("(recorded)");
    return plan.kernel.size.empty() ? QObject::tr("(default)") : QString::fromStdString(plan.kernel.size);
}

} // namespace

void WorkloadTaskModel::setPlan(const WorkloadPlan& plan) {
    beginResetModel();
    m_rows.clear();
    for (const WorkloadTaskPlan& task : plan.tasks) {
        Row row;
        row.name = QString::fromStdString(task.name);
        row.kernel = kernelOf(task.plan);
        row.size = sizeOf(task.plan);
        row.weight = task.weight;
        row.best = INFINITY;
        m_rows.push_back(std::move(row));
    }
    endResetModel();
}

void WorkloadTaskModel::rowChanged(int task) {
    emit dataChanged(index(task, 0), index(task, ColumnCount - 1));
}

void WorkloadTaskModel::setTaskSession(int task, std::int64_t session) {
    if (task < 0 || task >= rowCount())
        return;
    m_rows[static_cast<std::size_t>(task)].session = session;
    m_rows[static_cast<std::size_t>(task)].status = "tuning";
    rowChanged(task);
}

void WorkloadTaskModel::setTaskFailed(int task, const QString& error) {
    if (task < 0 || task >= rowCount())
        return;
    m_rows[static_cast<std::size_t>(task)].status = "failed";
    m_rows[static_cast<std::size_t>(task)].error = error;
    rowChanged(task);
}

void WorkloadTaskModel::applyUpdate(const WorkloadUpdate& update) {
    if (m_rows.empty())
        return;
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        if (i < update.progress.trialsPerTask.size())
            m_rows[i].trials = update.progress.trialsPerTask[i];
        if (i < update.bestPerTask.size())
            m_rows[i].best = update.bestPerTask[i];
    }
    // Every share moves when one best does.
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void WorkloadTaskModel::setRecordedStatuses(const WorkloadRecord& record) {
    for (const WorkloadTaskRecord& task : record.tasks) {
        if (task.position < 0 || task.position >= rowCount())
            continue;
        Row& row = m_rows[static_cast<std::size_t>(task.position)];
        row.status = QString::fromStdString(task.status);
        row.error = QString::fromStdString(task.error);
        if (task.session)
            row.session = task.session;
        rowChanged(task.position);
    }
}

std::optional<double> WorkloadTaskModel::share(int task) const {
    double total = 0.0;
    for (const Row& row : m_rows)
        if (std::isfinite(row.best))
            total += row.weight * row.best;
    const Row& row = m_rows[static_cast<std::size_t>(task)];
    if (!std::isfinite(row.best) || total <= 0)
        return std::nullopt;
    return row.weight * row.best / total;
}

int WorkloadTaskModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int WorkloadTaskModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WorkloadTaskModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    const std::optional<double> share = this->share(index.row());
    if (role == kSessionRole)
        return row.session ? QVariant::fromValue<qint64>(*row.session) : QVariant();
    if (role == Qt::ToolTipRole && index.column() == Status && !row.error.isEmpty())
        return row.error;
    if (role == Qt::ForegroundRole && index.column() == Status && row.status == "failed")
        return QBrush(readableText(QColor(180, 30, 30), QApplication::palette()));
    if (role == kSortRole) {
        switch (index.column()) {
        case Weight:
            return row.weight;
        case Trials:
            return static_cast<qlonglong>(row.trials);
        case Best:
            return std::isfinite(row.best) ? row.best : std::numeric_limits<double>::max();
        case Share:
            return share.value_or(-1.0);
        case Session:
            return static_cast<qlonglong>(row.session.value_or(0));
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Task:
        return row.name;
    case Kernel:
        return row.kernel;
    case Size:
        return row.size;
    case Weight:
        return QString::number(row.weight, 'g', 4);
    case Trials:
        return QString::number(row.trials);
    case Best:
        return std::isfinite(row.best) ? formatMs(row.best) : QString();
    case Share:
        return share ? QString::number(*share * 100.0, 'f', 1) + " %" : QString();
    case Status:
        return row.status;
    case Session:
        return row.session ? QString::number(*row.session) : QString();
    default:
        return {};
    }
}

QVariant WorkloadTaskModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const kTitles[ColumnCount] = {
        "task", "kernel / dataset", "size", "weight", "trials", "best", "share", "status", "session"};
    return section >= 0 && section < ColumnCount ? tr(kTitles[section]) : QVariant();
}

} // namespace ts::gui
