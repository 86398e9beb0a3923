#pragma once

#include "trial/MeasureStatus.h"

#include <QColor>

namespace ts::gui {

// One colour per measurement status, shared by the table, the explorer plots and the details.
QColor statusColor(MeasureStatus status);

// The text colour on every status colour (they are all light tints), whatever the palette's text colour.
QColor statusTextColor();

} // namespace ts::gui
