#include "window/TimeFormat.h"

#include <array>
#include <cmath>

namespace ts::gui {

namespace {

struct Unit {
    const char* name;
    double seconds;
};

constexpr std::array<Unit, 4> kUnits{{{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}}};

// Four significant digits without an exponent (thousands of seconds print in full).
QString fourDigits(double value) {
    return std::abs(value) >= 1000.0 ? QString::number(value, 'f', 0) : QString::number(value, 'g', 4);
}

} // namespace

QString formatS(double seconds) {
    if (!std::isfinite(seconds))
        return QStringLiteral("-");
    if (seconds == 0.0)
        return QStringLiteral("0 s");
    const double magnitude = std::abs(seconds);
    std::size_t unit = 0;
    while (unit + 1 < kUnits.size() && magnitude >= kUnits[unit + 1].seconds)
        ++unit;
    QString digits = fourDigits(seconds / kUnits[unit].seconds);
    // 999.96 us rounds to "1000 us", which reads better as "1 ms".
    if (std::abs(digits.toDouble()) >= 1000.0 && unit + 1 < kUnits.size())
        digits = fourDigits(seconds / kUnits[++unit].seconds);
    return digits + ' ' + kUnits[unit].name;
}

QString formatMs(double ms) {
    return formatS(ms / 1e3);
}

QString formatDuration(double s) {
    if (s < 60)
        return QString::number(s, 'f', 1) + " s";
    if (s < 3600)
        return QString("%1 min %2 s").arg(int(s) / 60).arg(int(s) % 60);
    return QString("%1 h %2 min").arg(int(s) / 3600).arg((int(s) % 3600) / 60);
}

} // namespace ts::gui
