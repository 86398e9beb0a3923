#pragma once

#include <QColor>

namespace ts::gui {

// A perceptually ordered colour ramp (viridis stops) for times: t = 0 is the fastest (yellow), t = 1 the
// slowest (dark blue). t is clamped to [0, 1].
QColor rampColor(double t);

// Position of a time in [lo, hi] on a log scale, for rampColor; 0 when the range is empty.
double logPosition(double value, double lo, double hi);

} // namespace ts::gui
