#pragma once

#include <QString>

namespace ts::gui {

// Every time value the window prints in a table, a label or a colour bar goes through here, so that a
// 41 us CPU kernel and a 12 ms GEMM read alike: the unit that fits (ns, us, ms, s) and about four
// significant digits, e.g. "41.2 us", "12.35 ms", "3.5 s". Sorting stays numeric: models sort on the value,
// never on this text.
QString formatMs(double ms);
QString formatS(double seconds);

// A wall-clock duration (elapsed time, ETA): "12.3 s", "4 min 5 s", "2 h 10 min".
QString formatDuration(double seconds);

} // namespace ts::gui
