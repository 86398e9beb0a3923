#pragma once

#include <QObject>
#include <QPointF>
#include <functional>

class QChartView;

namespace ts::gui {

class PointPicker;
class RunData;

// Selects in RunData the trial nearest a left click in a chart view. On each press in the view's viewport the
// view's callback adds the trials it draws to a PointPicker at their positions in the chart's coordinates
// (QChart::mapToPosition of the point in its series' axis coordinates, ChartSupport's axisPoint on log
// axes); the nearest within PointPicker::kRadius pixels is selected, and a click on empty space changes
// nothing. The press still reaches the view. Owned by the chart view.
class ChartClickPicker : public QObject {
    Q_OBJECT
public:
    using Fill = std::function<void(PointPicker& picker)>;

    ChartClickPicker(QChartView* view, RunData& data, Fill fill);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QChartView* m_view;
    RunData& m_data;
    Fill m_fill;
};

} // namespace ts::gui
