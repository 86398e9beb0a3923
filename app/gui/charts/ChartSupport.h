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

// A chart view with animations off, antialiasing on and a compact legend, in the colours of its palette
// (ChartPalette) and with the export actions in its context menu (ChartExporter).
QChartView* makeChartView(const QString& title, QWidget* parent);

// A value or log axis with a title. A value axis ticks on multiples of niceStep(range): set its range with
// setRangeIfChanged (or setRange, setRangeFromZero), never with QValueAxis::setRange, which keeps the old
// tick interval. A log axis (Qt's QLogValueAxis labels only whole powers of its base: one "10" over most
// ranges) is a category axis over log10 of the data, labelled at logTicks() by setRange: series on it take
// their coordinates through axisValue(). Log axes need strictly positive ranges.
QAbstractAxis* makeAxis(const QString& title, bool log);

// True for a log axis made by makeAxis.
bool isLog(const QAbstractAxis* axis);
// A data value in the axis's coordinates (log10 on a log axis) and back.
double axisValue(const QAbstractAxis* axis, double value);
double dataValue(const QAbstractAxis* axis, double coordinate);
// A data point in the coordinates of its x and y axes.
QPointF axisPoint(const QAbstractAxis* x, const QAbstractAxis* y, QPointF point);
// Data points in the coordinates of their x and y axes.
QList<QPointF> axisPoints(const QAbstractAxis* x, const QAbstractAxis* y, const QList<QPointF>& points);

// Readable ticks for a log axis over [low, high] (low > 0), 2 to about 8 of them: powers of ten over many
// decades, 1-2-5 steps over one or two, evenly spaced nice values within a decade.
QList<double> logTicks(double low, double high);

// Sets an axis range from data bounds, padding it a little (multiplicatively on a log axis) so points on
// the edge stay visible. Empty or degenerate bounds give a unit range; non-negative data gives an axis
// from zero or above.
void setRange(QAbstractAxis* axis, double low, double high);

// Sets a value axis to [0, high] with nice numbers (evaluation and time axes start at zero).
void setRangeFromZero(QAbstractAxis* axis, double high);

// The next "nice" number (1, 2, 2.5 or 5 times a power of ten) at or above x, so that growing data changes
// an axis range only now and then (every range change re-lays the chart out).
double niceCeil(double x);

// The nice step that splits `span` into at most about `ticks` intervals: the tick interval of every value
// axis made by makeAxis, which follows its range.
double niceStep(double span, int ticks = 5);

// Sets the range only when it differs from the axis's current one, and a value axis's tick interval to
// niceStep of it.
void setRangeIfChanged(QAbstractAxis* axis, double low, double high);

// Shows a legend entry for an XY series only while it is visible and has points, so that the legend
// names what is drawn (area series and their bounds are left as they are).
void showLegendOfDrawnSeries(QChart* chart);

// Keeps at most `limit` points, evenly spaced over the list and always keeping the last (scatter series
// create one graphics item per marker, so dense scatters are decimated).
QList<QPointF> decimate(const QList<QPointF>& points, qsizetype limit);

} // namespace charts

} // namespace ts::gui
