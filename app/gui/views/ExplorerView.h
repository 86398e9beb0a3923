#pragma once

#include "views/RunView.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QTabWidget;

namespace ts::gui {

class HeatmapWidget;
class MarginalPlotWidget;
class ParallelCoordinatesWidget;
class TrialFilterProxy;
class TrialTableModel;

// The config-space explorer: the trials table (sortable; filterable by status and by parameter ranges,
// typed or brushed on the parallel coordinates; status colours), a heatmap of any two parameters, parallel
// coordinates with brushing (on every axis, the time's included; the summary says how many trials the
// brushes keep) and per-parameter marginal plots. Selecting a trial in any of them (a row, a cell, a line, a
// dot) selects it in RunData, which every view follows. The table and the plots sit side by side when the
// view is wide enough for both, else the plots below the table (AdaptiveSplitter).
class AdaptiveSplitter;

class ExplorerView : public RunView {
    Q_OBJECT
public:
    explicit ExplorerView(RunData& data, QWidget* parent = nullptr);

    QTableView* table() const { return m_table; }
    TrialTableModel* model() const { return m_model; }
    TrialFilterProxy* proxy() const { return m_proxy; }
    HeatmapWidget* heatmap() const { return m_heatmap; }
    ParallelCoordinatesWidget* parallelCoordinates() const { return m_parallel; }
    MarginalPlotWidget* marginals() const { return m_marginals; }
    QTabWidget* plots() const { return m_plots; }
    AdaptiveSplitter* splitter() const { return m_splitter; }

protected:
    void refresh() override;

private:
    void resetChoices();
    void applyStatusFilter();
    void addTypedRange();
    void applyBrushes();
    void showBrushSummary();
    void followSelection(int row);

    AdaptiveSplitter* m_splitter;
    TrialTableModel* m_model;
    TrialFilterProxy* m_proxy;
    QTableView* m_table;
    QComboBox* m_status;
    QComboBox* m_rangeParameter;
    QLineEdit* m_rangeLow;
    QLineEdit* m_rangeHigh;
    QLabel* m_filterSummary;
    QTabWidget* m_plots;
    QComboBox* m_heatX;
    QComboBox* m_heatY;
    HeatmapWidget* m_heatmap;
    ParallelCoordinatesWidget* m_parallel;
    MarginalPlotWidget* m_marginals;
    bool m_following = false;
};

} // namespace ts::gui
