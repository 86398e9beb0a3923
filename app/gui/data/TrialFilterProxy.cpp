#include "data/TrialFilterProxy.h"

#include "data/TrialTableModel.h"

namespace ts::gui {

TrialFilterProxy::TrialFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(TrialTableModel::kSortRole);
    setDynamicSortFilter(true);
}

void TrialFilterProxy::setStatuses(std::set<MeasureStatus> statuses) {
    m_statuses = std::move(statuses);
    invalidateRowsFilter();
}

void TrialFilterProxy::setParameterRange(int parameter, double low, double high) {
    m_ranges[parameter] = {low, high};
    invalidateRowsFilter();
}

void TrialFilterProxy::clearParameterRanges() {
    m_ranges.clear();
    invalidateRowsFilter();
}

void TrialFilterProxy::setRowFilter(std::function<bool(int sourceRow)> keep) {
    m_keep = std::move(keep);
    invalidateRowsFilter();
}

bool TrialFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const QAbstractItemModel* source = sourceModel();
    if (m_keep && !m_keep(sourceRow))
        return false;
    if (!m_statuses.empty()) {
        int status = source->index(sourceRow, TrialTableModel::Status, sourceParent)
                         .data(TrialTableModel::kStatusRole)
                         .toInt();
        if (!m_statuses.count(static_cast<MeasureStatus>(status)))
            return false;
    }
    for (const auto& [parameter, range] : m_ranges) {
        QVariant value = source->index(sourceRow, TrialTableModel::FirstParameter + parameter, sourceParent)
                             .data(TrialTableModel::kSortRole);
        bool numeric = false;
        double x = value.toDouble(&numeric);
        if (!numeric || x < range.first || x > range.second)
            return false;
    }
    return true;
}

} // namespace ts::gui
