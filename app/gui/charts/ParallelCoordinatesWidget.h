#pragma once

#include <QImage>
#include <QRectF>
#include <QString>
#include <QWidget>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace ts::gui {

class RunData;

// Parallel coordinates drawn with QPainter (Qt Charts has none): one vertical axis per parameter (values in
// their list order) plus the time (log scale, fastest at the top); one polyline per Ok trial coloured by
// time. Dragging along an axis brushes a range; trials outside any brush are greyed, and brushesChanged lets
// the explorer filter the table by keeps(). A time brush holds times (ms): it keeps the same trials while
// new ones widen the axis. A left click away from the axes selects the nearest line's trial
// (RunData::select); the selected trial is drawn in red. With many axes the names and value ranges are
// elided, and staggered over two rows when even that leaves too little room, so no two labels overlap; a
// tool tip gives the full text. At most kMaxLines lines are drawn (evenly picked, the best always kept);
// the picture is cached and redrawn only when data, brushes or size change.
class ParallelCoordinatesWidget : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxLines = 1500;

    explicit ParallelCoordinatesWidget(RunData& data, QWidget* parent = nullptr);

    void invalidate();
    // Brushes as ranges of the normalised axis position (0 = bottom, 1 = top), by axis (parameters first,
    // the time axis last).
    const std::map<int, std::pair<double, double>>& brushes() const { return m_brushes; }
    void setBrush(int axis, double low, double high);
    void clearBrushes();
    // Parameter value positions [first, last] a parameter's brush keeps; nullopt when it has no brush.
    std::optional<std::pair<int, int>> brushedPositions(std::size_t parameter) const;
    // Times (ms) the time axis's brush keeps, inclusive; nullopt when it has no brush.
    std::optional<std::pair<double, double>> brushedTimes() const { return m_timeBrush; }
    // True when trial `row` passes every brush: its value's position within each parameter's brush, and for
    // a time brush an Ok time within it (the trials the table keeps, drawn in colour).
    bool keeps(std::size_t row) const;
    int axisCount() const;
    // The polyline of trial `row` (one vertex per axis, widget pixels); empty when it is not drawable.
    std::vector<QPointF> polyline(std::size_t row) const;
    // The rectangles of every axis name and value range label, and their full texts (tool tips).
    struct Label {
        QRectF rect;
        QString text;
    };
    std::vector<Label> labels() const;
    QSize minimumSizeHint() const override { return {300, 180}; }

signals:
    void brushesChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    double axisX(int axis) const;
    double toY(double position) const;
    double fromY(double y) const;
    bool staggered() const; // labels over two rows
    double topMargin() const;
    double bottomMargin() const;
    // Fastest and slowest Ok time (the time axis's ends); +inf, -inf without Ok trials.
    std::pair<double, double> timeBounds() const;
    // Normalised positions of one trial on every axis; false when it is not drawable.
    bool positions(std::size_t row, double lo, double hi, std::vector<double>& out) const;
    // polyline() on a time axis over [lo, hi].
    std::vector<QPointF> polyline(std::size_t row, double lo, double hi) const;
    // Stores a brush in normalised positions, and for the time axis the times it spans now.
    void storeBrush(int axis, double low, double high);
    void eraseBrush(int axis);
    void render();

    RunData& m_data;
    QImage m_cache;
    bool m_cacheValid = false;
    std::map<int, std::pair<double, double>> m_brushes;
    std::optional<std::pair<double, double>> m_timeBrush; // ms, inclusive
    std::pair<double, double> m_timeBrushBounds;          // the time axis's ends when it was brushed
    std::vector<std::size_t> m_drawn;                     // rows of the cached lines, in drawing order
    int m_dragAxis = -1;
    double m_dragStart = 0.0;
};

} // namespace ts::gui
