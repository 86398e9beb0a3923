#pragma once

#include <QObject>

class QChartView;

namespace ts::gui {

// Keeps a chart's legend compact: detached from the chart's layout (which would give it a column or a row
// of its own, a third of a small scatter) and laid over a top corner of the plot area in a smaller
// font on a translucent background, refitted whenever the plot area, the palette or its entries change
// (call place() after adding series or changing which markers are visible). For charts whose top left (or
// right) stays mostly empty: predicted vs measured, where the points lie along the diagonal; curves that
// fall from the left.
class PlotLegend : public QObject {
    Q_OBJECT
public:
    explicit PlotLegend(QChartView* view, Qt::Corner corner = Qt::TopLeftCorner);

    void place();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QChartView* m_view;
    Qt::Corner m_corner;
};

} // namespace ts::gui
