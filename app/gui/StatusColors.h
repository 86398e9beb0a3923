#pragma once

#include "trial/MeasureStatus.h"

#include <QColor>

namespace ts::gui {

// One colour per measurement status, shared by the table, the explorer plots and the details.
QColor statusColor(MeasureStatus status);

} // namespace ts::gui
