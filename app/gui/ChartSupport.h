#pragma once

#include <QList>
#include <QPointF>
#include <QString>

class QAbstractAxis;
class QChart;
class QChartView;
class QValueAxis;
class QWidget;

namespace ts::gui {

// Small helpers every Qt Charts view shares (Qt 6.4 pitfalls: animations off, axes set explicitly, data
// pushed with replace()).
namespace charts {

// A chart view with animations off, antialiasing on and a compact legend.
QChartView* makeChartView(const QString& title, QWidget* parent);

// A value or log axis with a title; log axes need strictly positive ranges.
QAbstractAxis* makeAxis(const QString& title, bool log);

// Sets an axis range from data bounds, padding it a little (multiplicatively on a log axis) so points on
// the edge stay visible. Empty or degenerate bounds give a unit range.
void setRange(QAbstractAxis* axis, double low, double high);

// Sets a value axis to [0, high] with nice numbers (evaluation and time axes start at zero).
void setRangeFromZero(QAbstractAxis* axis, double high);

// The next "nice" number (1, 2 or 5 times a power of ten) at or above x, so that growing data changes an
// axis range only now and then (every range change re-lays the chart out).
double niceCeil(double x);

// Sets the range only when it differs from the axis's current one.
void setRangeIfChanged(QAbstractAxis* axis, double low, double high);

// Keeps at most `limit` points, evenly spaced over the list and always keeping the last (scatter series
// create one graphics item per marker, so dense scatters are decimated).
QList<QPointF> decimate(const QList<QPointF>& points, qsizetype limit);

} // namespace charts

} // namespace ts::gui
