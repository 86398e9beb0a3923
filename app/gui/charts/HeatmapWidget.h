#pragma once

#include "data/HeatmapData.h"

#include <QWidget>

namespace ts::gui {

class RunData;

// A QPainter heatmap of two parameters (Qt Charts has none): colour = best time over the other parameters
// (log scale, yellow = fastest), grey = measured but nothing Ok, blank = not measured. The selected trial's
// cell is outlined; a left click on a cell selects its best trial (a cell with no Ok trial selects nothing).
class HeatmapWidget : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapWidget(RunData& data, QWidget* parent = nullptr);

    void setParameters(std::size_t x, std::size_t y);
    // Rebuilds the data from all the run's trials (new trials are added as they are appended).
    void recompute();
    const HeatmapData& heatmap() const { return m_heatmap; }
    // Where a cell is drawn (widget pixels); column and row are value positions of the x and y parameters.
    QRectF cellArea(int column, int row) const { return cellRect(plotArea(), column, row); }
    QSize minimumSizeHint() const override { return {220, 180}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRectF plotArea() const;
    QRectF cellRect(const QRectF& area, int column, int row) const;

    RunData& m_data;
    std::size_t m_x = 0, m_y = 1;
    HeatmapData m_heatmap;
};

} // namespace ts::gui
