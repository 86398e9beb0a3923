#include "charts/PointPicker.h"

#include <algorithm>
#include <cmath>

namespace ts::gui {

namespace {

double distance(QPointF p, QPointF from, QPointF to) {
    const QPointF d = to - from;
    const double length2 = QPointF::dotProduct(d, d);
    const double t = length2 > 0 ? std::clamp(QPointF::dotProduct(p - from, d) / length2, 0.0, 1.0) : 0.0;
    const QPointF nearest = from + t * d;
    return std::hypot(p.x() - nearest.x(), p.y() - nearest.y());
}

} // namespace

void PointPicker::add(int row, QPointF position) {
    m_segments.push_back({row, position, position});
}

void PointPicker::addPolyline(int row, std::span<const QPointF> vertices) {
    if (vertices.size() == 1)
        add(row, vertices.front());
    for (std::size_t i = 1; i < vertices.size(); ++i)
        m_segments.push_back({row, vertices[i - 1], vertices[i]});
}

int PointPicker::pick(QPointF click, double radius) const {
    int row = -1;
    double best = radius;
    for (const Segment& s : m_segments) {
        const double d = distance(click, s.from, s.to);
        if (d <= best) {
            best = d;
            row = s.row;
        }
    }
    return row;
}

} // namespace ts::gui
