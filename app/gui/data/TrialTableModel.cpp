#include "data/TrialTableModel.h"

#include "data/RunData.h"
#include "window/StatusColors.h"
#include "window/TimeFormat.h"

#include <QColor>

namespace ts::gui {

TrialTableModel::TrialTableModel(RunData& data, QObject* parent) : QAbstractTableModel(parent), m_data(data) {
    connect(&data, &RunData::resetDone, this, [this] {
        beginResetModel();
        m_rows = static_cast<int>(m_data.trials().size());
        m_parameters = static_cast<int>(m_data.parameters().size());
        endResetModel();
    });
    connect(&data, &RunData::trialsAppended, this, [this](int first, int count) {
        if (first != m_rows || count <= 0)
            return;
        beginInsertRows({}, first, first + count - 1);
        m_rows = first + count;
        endInsertRows();
    });
    m_rows = static_cast<int>(data.trials().size());
    m_parameters = static_cast<int>(data.parameters().size());
}

int TrialTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_rows;
}

int TrialTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : FirstParameter + m_parameters;
}

QVariant TrialTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows)
        return {};
    const Trial& t = m_data.trials()[static_cast<std::size_t>(index.row())];
    bool ok = t.measurement.status == MeasureStatus::Ok;
    if (role == Qt::BackgroundRole)
        return statusColor(t.measurement.status);
    if (role == Qt::ForegroundRole)
        return statusTextColor();
    if (role == kStatusRole)
        return static_cast<int>(t.measurement.status);
    if (role == Qt::TextAlignmentRole)
        return index.column() == Status ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != kSortRole)
        return {};
    bool sort = role == kSortRole;
    switch (index.column()) {
    case Number:
        return static_cast<qlonglong>(t.number + 1);
    case Status:
        return QString(toString(t.measurement.status));
    case Time:
        if (!ok)
            return sort ? QVariant(1e300) : QVariant();
        return sort ? QVariant(t.measurement.objective) : QVariant(formatMs(t.measurement.objective));
    case Predicted:
        if (!t.predicted)
            return sort ? QVariant(1e300) : QVariant();
        return sort ? QVariant(*t.predicted) : QVariant(formatMs(*t.predicted));
    case Batch:
        return static_cast<qlonglong>(t.batch);
    case Elapsed:
        return sort ? QVariant(t.elapsedS) : QVariant(formatS(t.elapsedS));
    default:
        break;
    }
    auto p = static_cast<std::size_t>(index.column() - FirstParameter);
    if (p >= t.config.size())
        return {};
    const Value& v = t.config[p];
    if (sort && isNumeric(v))
        return toNumber(v);
    return QString::fromStdString(toString(v));
}

QVariant TrialTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Number:
        return tr("#");
    case Status:
        return tr("status");
    case Time:
        return tr("time");
    case Predicted:
        return tr("predicted");
    case Batch:
        return tr("batch");
    case Elapsed:
        return tr("elapsed");
    default:
        break;
    }
    auto p = static_cast<std::size_t>(section - FirstParameter);
    return p < m_data.parameters().size() ? QString::fromStdString(m_data.parameters()[p].name) : QVariant();
}

} // namespace ts::gui
