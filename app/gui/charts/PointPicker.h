#pragma once

#include <QPointF>
#include <span>
#include <vector>

namespace ts::gui {

// Picks the trial drawn nearest a click, in pixel space (every chart's one pick rule): a view adds where it
// draws each trial (a marker's centre, or a polyline), in the coordinates of the click, and pick() returns
// the row of the nearest within the radius, or -1 when nothing is that close (a click on empty space
// selects nothing). At equal distance the trial added last wins: views add in drawing order, so the one on
// top is picked.
class PointPicker {
public:
    static constexpr double kRadius = 6.0; // pixels

    void add(int row, QPointF position);
    void addPolyline(int row, std::span<const QPointF> vertices);
    int pick(QPointF click, double radius = kRadius) const;
    bool isEmpty() const { return m_segments.empty(); }

private:
    struct Segment {
        int row;
        QPointF from, to; // equal for a single point
    };
    std::vector<Segment> m_segments;
};

} // namespace ts::gui
