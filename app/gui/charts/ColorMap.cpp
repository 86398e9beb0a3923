#include "charts/ColorMap.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ts::gui {

QColor rampColor(double t) {
    static const std::array<QColor, 5> stops = {QColor(253, 231, 37), QColor(94, 201, 98),
                                                QColor(33, 145, 140), QColor(59, 82, 139), QColor(68, 1, 84)};
    t = std::clamp(std::isfinite(t) ? t : 1.0, 0.0, 1.0) * (stops.size() - 1);
    auto i = std::min<std::size_t>(static_cast<std::size_t>(t), stops.size() - 2);
    double f = t - static_cast<double>(i);
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * f, a.greenF() + (b.greenF() - a.greenF()) * f,
                            a.blueF() + (b.blueF() - a.blueF()) * f);
}

double logPosition(double value, double lo, double hi) {
    if (!(lo > 0) || !(hi > lo) || !(value > 0))
        return 0.0;
    return (std::log(value) - std::log(lo)) / (std::log(hi) - std::log(lo));
}

} // namespace ts::gui
