#pragma once

#include "trial/MeasureStatus.h"

#include <QSortFilterProxyModel>
#include <functional>
#include <map>
#include <set>

namespace ts::gui {

// Sorts the trials table numerically and filters it by status, by numeric ranges of parameters (inclusive)
// and by a test of the source row (the parallel coordinates' brushes, over every axis). The source must be a
// TrialTableModel.
class TrialFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit TrialFilterProxy(QObject* parent = nullptr);

    // Empty set: every status passes.
    void setStatuses(std::set<MeasureStatus> statuses);
    void setParameterRange(int parameter, double low, double high);
    void clearParameterRanges();
    // Keeps only the source rows `keep` accepts; an empty function keeps every row. Called for each row on
    // every refilter, so it must be cheap.
    void setRowFilter(std::function<bool(int sourceRow)> keep);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    std::set<MeasureStatus> m_statuses;
    std::map<int, std::pair<double, double>> m_ranges;
    std::function<bool(int)> m_keep;
};

} // namespace ts::gui
