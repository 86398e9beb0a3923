#pragma once

#include <QAbstractTableModel>

namespace ts::gui {

class RunData;

// The run's trials as a table: number, status, time, predicted, batch, elapsed, then one column per
// parameter. Rows are appended in batches as RunData grows. Qt::UserRole gives numbers for sorting and
// filtering; the background shows the status colour.
class TrialTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Number, Status, Time, Predicted, Batch, Elapsed, FirstParameter };
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kStatusRole = Qt::UserRole + 1; // MeasureStatus as int

    explicit TrialTableModel(RunData& data, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    RunData& m_data;
    int m_rows = 0;
    int m_parameters = 0;
};

} // namespace ts::gui
