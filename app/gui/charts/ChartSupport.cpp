#include "charts/ChartSupport.h"

#include "charts/ChartExporter.h"
#include "charts/ChartPalette.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLegendMarker>
#include <QValueAxis>
#include <QXYSeries>
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
    view->setMinimumSize(240, 220); // smaller, the axes drop their tick labels ("...")
    ChartPalette::follow(view);
    ChartExporter::installMenu(view);
    return view;
}

namespace {

constexpr const char* kLogProperty = "tunescopeLogAxis";

// Labels a log axis at logTicks of its data range [low, high].
void labelLogAxis(QCategoryAxis* axis, double low, double high) {
    for (const QString& label : axis->categoriesLabels())
        axis->remove(label);
    axis->setStartValue(std::log10(low));
    for (double tick : logTicks(low, high)) {
        const double at = std::log10(tick);
        if (at > axis->startValue())
            axis->append(QString::number(tick, 'g', 6), at);
    }
}

} // namespace

QAbstractAxis* makeAxis(const QString& title, bool log) {
    if (log) {
        auto* axis = new QCategoryAxis;
        axis->setProperty(kLogProperty, true);
        axis->setTitleText(title);
        axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        axis->setRange(-1.0, 0.0);
        labelLogAxis(axis, 0.1, 1.0);
        return axis;
    }
    auto* axis = new QValueAxis;
    axis->setTitleText(title);
    axis->setLabelFormat("%.4g");
    // Qt's default of five ticks splits any range in four (0.255, 26.25): ticks at multiples of a nice step
    // instead, kept by setRangeIfChanged.
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0.0);
    axis->setRange(0.0, 1.0);
    axis->setTickInterval(niceStep(1.0));
    return axis;
}

bool isLog(const QAbstractAxis* axis) {
    return axis && axis->property(kLogProperty).toBool();
}

double axisValue(const QAbstractAxis* axis, double value) {
    return isLog(axis) ? std::log10(value) : value;
}

double dataValue(const QAbstractAxis* axis, double coordinate) {
    return isLog(axis) ? std::pow(10.0, coordinate) : coordinate;
}

QPointF axisPoint(const QAbstractAxis* x, const QAbstractAxis* y, QPointF point) {
    return {axisValue(x, point.x()), axisValue(y, point.y())};
}

QList<QPointF> axisPoints(const QAbstractAxis* x, const QAbstractAxis* y, const QList<QPointF>& points) {
    QList<QPointF> mapped;
    mapped.reserve(points.size());
    for (const QPointF& p : points)
        mapped.push_back(axisPoint(x, y, p));
    return mapped;
}

QList<double> logTicks(double low, double high) {
    QList<double> ticks;
    if (!(low > 0) || !(high > low) || !std::isfinite(high))
        return ticks;
    const double decades = std::log10(high / low);
    auto within = [&](double v) { return v >= low * (1 - 1e-9) && v <= high * (1 + 1e-9); };
    if (decades < 1.0) {
        // Within a decade a log axis is nearly linear: evenly spaced nice values.
        const double step = niceStep(high - low, 5);
        for (double k = std::ceil(low / step); k * step <= high * (1 + 1e-9); k += 1.0)
            ticks.push_back(k * step);
        return ticks;
    }
    const int first = static_cast<int>(std::floor(std::log10(low)));
    const int last = static_cast<int>(std::ceil(std::log10(high)));
    const QList<double> mantissas = decades < 2.5 ? QList<double>{1.0, 2.0, 5.0} : QList<double>{1.0};
    const int every = std::max(1, static_cast<int>(std::ceil(decades / 8.0))); // at most ~8 powers
    for (int e = first; e <= last; ++e) {
        if (mantissas.size() == 1 && (e - first) % every != 0)
            continue;
        for (double m : mantissas) {
            const double v = m * std::pow(10.0, e);
            if (within(v))
                ticks.push_back(v);
        }
    }
    return ticks;
}

void setRange(QAbstractAxis* axis, double low, double high) {
    if (isLog(axis)) {
        if (!std::isfinite(low) || !std::isfinite(high) || low <= 0) {
            low = 0.1;
            high = 1.0;
        } else {
            if (high <= low)
                high = low * 10.0;
            low /= 1.15;
            high *= 1.15;
        }
        auto* category = static_cast<QCategoryAxis*>(axis);
        if (category->min() == std::log10(low) && category->max() == std::log10(high))
            return;
        category->setRange(std::log10(low), std::log10(high));
        labelLogAxis(category, low, high);
        return;
    }
    if (!std::isfinite(low) || !std::isfinite(high)) {
        setRangeIfChanged(axis, 0.0, 1.0);
        return;
    }
    double pad = (high - low) * 0.04;
    if (pad <= 0)
        pad = std::max(std::abs(high) * 0.05, 0.5);
    // Nice bounds by hand (applyNiceNumbers would re-lay the chart out even when nothing changes).
    double step = niceCeil((high - low + 2 * pad) / 5.0);
    double from = std::floor((low - pad) / step) * step;
    // Data that cannot be negative (times, counts) never gets a negative axis.
    if (low >= 0.0)
        from = std::max(0.0, from);
    setRangeIfChanged(axis, from, std::ceil((high + pad) / step) * step);
}

double niceStep(double span, int ticks) {
    return niceCeil(span / std::max(1, ticks));
}

double niceCeil(double x) {
    if (!std::isfinite(x) || x <= 0)
        return 1.0;
    double power = std::pow(10.0, std::floor(std::log10(x)));
    for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (step * power >= x * (1 - 1e-12))
            return step * power;
    return 10.0 * power;
}

void setRangeIfChanged(QAbstractAxis* axis, double low, double high) {
    auto* value = qobject_cast<QValueAxis*>(axis);
    if (!value || isLog(axis)) {
        axis->setRange(low, high);
        return;
    }
    if (value->min() == low && value->max() == high)
        return;
    // Qt lays the ticks out at once on either change: the order keeps every layout on the way to at most
    // as many ticks as before or after (a 0.2 step over a new range of 10,000 would be 50,000 of them).
    const double step = niceStep(high - low);
    if (step >= value->tickInterval()) {
        value->setTickInterval(step);
        value->setRange(low, high);
    } else {
        value->setRange(low, high);
        value->setTickInterval(step);
    }
}

void setRangeFromZero(QAbstractAxis* axis, double high) {
    setRangeIfChanged(axis, 0.0, niceCeil(high));
}

void showLegendOfDrawnSeries(QChart* chart) {
    for (QAbstractSeries* series : chart->series()) {
        auto* xy = qobject_cast<QXYSeries*>(series);
        if (!xy)
            continue;
        const bool drawn = xy->isVisible() && xy->count() > 0 && !xy->name().isEmpty();
        for (QLegendMarker* marker : chart->legend()->markers(xy))
            if (marker->isVisible() != drawn)
                marker->setVisible(drawn);
    }
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
