#include "ChartSupport.h"

#include <QChart>
#include <QChartView>
#include <QLogValueAxis>
#include <QValueAxis>
#include <cmath>

namespace ts::gui::charts {

QChartView* makeChartView(const QString& title, QWidget* parent) {
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto* view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(240, 180);
    return view;
}

QAbstractAxis* makeAxis(const QString& title, bool log) {
    if (log) {
        auto* axis = new QLogValueAxis;
        axis->setTitleText(title);
        axis->setBase(10.0);
        axis->setLabelFormat("%.3g");
        axis->setMinorTickCount(-1);
        return axis;
    }
    auto* axis = new QValueAxis;
    axis->setTitleText(title);
    axis->setLabelFormat("%.4g");
    return axis;
}

void setRange(QAbstractAxis* axis, double low, double high) {
    bool log = axis->type() == QAbstractAxis::AxisTypeLogValue;
    if (!std::isfinite(low) || !std::isfinite(high) || (log && low <= 0)) {
        setRangeIfChanged(axis, log ? 0.1 : 0.0, 1.0);
        return;
    }
    if (log) {
        if (high <= low)
            high = low * 10.0;
        setRangeIfChanged(axis, low / 1.15, high * 1.15);
        return;
    }
    double pad = (high - low) * 0.04;
    if (pad <= 0)
        pad = std::max(std::abs(high) * 0.05, 0.5);
    // Nice bounds by hand (applyNiceNumbers would re-lay the chart out even when nothing changes).
    double step = niceCeil((high - low + 2 * pad) / 5.0);
    setRangeIfChanged(axis, std::floor((low - pad) / step) * step, std::ceil((high + pad) / step) * step);
}

double niceCeil(double x) {
    if (!std::isfinite(x) || x <= 0)
        return 1.0;
    double power = std::pow(10.0, std::floor(std::log10(x)));
    for (double step : {1.0, 2.0, 5.0, 10.0})
        if (step * power >= x * (1 - 1e-12))
            return step * power;
    return 10.0 * power;
}

void setRangeIfChanged(QAbstractAxis* axis, double low, double high) {
    double min = 0, max = 0;
    if (auto* value = qobject_cast<QValueAxis*>(axis)) {
        min = value->min();
        max = value->max();
    } else if (auto* log = qobject_cast<QLogValueAxis*>(axis)) {
        min = log->min();
        max = log->max();
    }
    if (min != low || max != high)
        axis->setRange(low, high);
}

void setRangeFromZero(QAbstractAxis* axis, double high) {
    setRangeIfChanged(axis, 0.0, niceCeil(high));
}

QList<QPointF> decimate(const QList<QPointF>& points, qsizetype limit) {
    if (limit <= 0 || points.size() <= limit)
        return points;
    QList<QPointF> kept;
    kept.reserve(limit);
    double step = static_cast<double>(points.size() - 1) / static_cast<double>(limit - 1);
    for (qsizetype i = 0; i < limit; ++i)
        kept.push_back(points[std::min(points.size() - 1, static_cast<qsizetype>(std::llround(i * step)))]);
    return kept;
}

} // namespace ts::gui::charts
