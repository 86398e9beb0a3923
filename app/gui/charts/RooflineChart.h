#pragma once

#include "data/RooflinePlot.h"

#include <QLineSeries>
#include <QScatterSeries>
#include <QWidget>

class QAbstractAxis;
class QChartView;
class QLabel;

namespace ts::gui {

// The roofline of a cpu session (the Hardware view's fourth chart): log-log, the peak compute line, the
// memory bandwidth slope, the trials and the selected one, with a note under the chart. It draws a
// RooflinePlot; the series hold axis coordinates (log10 of the data, see charts::axisPoint).
class RooflineChart : public QWidget {
    Q_OBJECT
public:
    explicit RooflineChart(QWidget* parent = nullptr);

    QChartView* view() const { return m_view; }
    QLabel* note() const { return m_note; }
    QLineSeries* compute() const { return m_peakLine; }
    QLineSeries* memory() const { return m_memoryLine; }
    QScatterSeries* trials() const { return m_trialPoints; }
    QScatterSeries* selected() const { return m_selectedPoint; }
    QAbstractAxis* axis(Qt::Orientation orientation) const {
        return orientation == Qt::Horizontal ? m_x : m_y;
    }

    void draw(const RooflinePlot& plot);
    // Empties the chart and says why in the note.
    void clear(const QString& note);

private:
    QChartView* m_view;
    QLabel* m_note;
    QAbstractAxis* m_x;
    QAbstractAxis* m_y;
    QLineSeries* m_peakLine;
    QLineSeries* m_memoryLine;
    QScatterSeries* m_trialPoints;
    QScatterSeries* m_selectedPoint;
};

} // namespace ts::gui
