#pragma once

#include "trial/MeasureStatus.h"

#include <QSortFilterProxyModel>
#include <map>
#include <set>

namespace ts::gui {

// Sorts the trials table numerically and filters it by status and by numeric ranges of parameters
// (inclusive). The source must be a TrialTableModel.
class TrialFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit TrialFilterProxy(QObject* parent = nullptr);

    // Empty set: every status passes.
    void setStatuses(std::set<MeasureStatus> statuses);
    void setParameterRange(int parameter, double low, double high);
    void clearParameterRanges();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    std::set<MeasureStatus> m_statuses;
    std::map<int, std::pair<double, double>> m_ranges;
};

} // namespace ts::gui
