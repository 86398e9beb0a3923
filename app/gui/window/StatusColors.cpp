#include "window/StatusColors.h"

namespace ts::gui {

QColor statusColor(MeasureStatus status) {
    switch (status) {
    case MeasureStatus::Ok:
        return QColor(220, 245, 220);
    case MeasureStatus::CompileFailed:
        return QColor(255, 214, 170);
    case MeasureStatus::RuntimeFailed:
        return QColor(255, 190, 190);
    case MeasureStatus::Timeout:
        return QColor(240, 200, 240);
    case MeasureStatus::WrongResult:
        return QColor(255, 160, 160);
    case MeasureStatus::Invalid:
        return QColor(225, 225, 225);
    }
    return QColor(Qt::white);
}

QColor statusTextColor() {
    return QColor(20, 20, 20);
}

} // namespace ts::gui
