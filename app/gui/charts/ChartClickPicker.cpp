#include "charts/ChartClickPicker.h"

#include "charts/PointPicker.h"
#include "data/RunData.h"

#include <QChart>
#include <QChartView>
#include <QMouseEvent>

namespace ts::gui {

ChartClickPicker::ChartClickPicker(QChartView* view, RunData& data, Fill fill)
    : QObject(view), m_view(view), m_data(data), m_fill(std::move(fill)) {
    view->viewport()->installEventFilter(this);
}

bool ChartClickPicker::eventFilter(QObject* watched, QEvent* event) {
    if (watched != m_view->viewport() || event->type() != QEvent::MouseButtonPress)
        return false;
    auto* mouse = static_cast<QMouseEvent*>(event);
    if (mouse->button() != Qt::LeftButton)
        return false;
    QChart* chart = m_view->chart();
    const QPointF click = chart->mapFromScene(m_view->mapToScene(mouse->position().toPoint()));
    PointPicker picker;
    m_fill(picker);
    const int row = picker.pick(click);
    if (row >= 0)
        m_data.select(row);
    return false;
}

} // namespace ts::gui
