#pragma once

#include <QImage>
#include <QWidget>
#include <map>
#include <optional>
#include <utility>

namespace ts::gui {

class RunData;

// Parallel coordinates drawn with QPainter (Qt Charts has none): one vertical axis per parameter (values in
// their list order) plus the time (log scale, fastest at the top); one polyline per Ok trial coloured by
// time. Dragging along an axis brushes a range; trials outside any brush are greyed, and brushesChanged lets
// the explorer filter the table. At most kMaxLines lines are drawn (evenly picked, the best always kept);
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
    int axisCount() const;
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

private:
    double axisX(int axis) const;
    double toY(double position) const;
    double fromY(double y) const;
    // Normalised positions of one trial on every axis; false when it is not drawable.
    bool positions(std::size_t row, double lo, double hi, std::vector<double>& out) const;
    bool passes(const std::vector<double>& positions) const;
    void render();

    RunData& m_data;
    QImage m_cache;
    bool m_cacheValid = false;
    std::map<int, std::pair<double, double>> m_brushes;
    int m_dragAxis = -1;
    double m_dragStart = 0.0;
};

} // namespace ts::gui
