#include "charts/HeatmapWidget.h"

#include "charts/ChartExporter.h"
#include "charts/ColorMap.h"
#include "data/RunData.h"
#include "window/TimeFormat.h"

#include <QMouseEvent>
#include <QPainter>
#include <cmath>

namespace ts::gui {

namespace {
constexpr int kBarMargin = 96; // right of the plot: gap, colour bar, time labels
}

HeatmapWidget::HeatmapWidget(RunData& data, QWidget* parent) : QWidget(parent), m_data(data) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    ChartExporter::installMenu(this);
    connect(&data, &RunData::selectionChanged, this, qOverload<>(&QWidget::update));
    // The heatmap follows the trials itself, as the trials table does, whether or not its tab is in front.
    connect(&data, &RunData::resetDone, this, &HeatmapWidget::recompute);
    connect(&data, &RunData::trialsAppended, this, [this](int first, int) {
        if (static_cast<std::size_t>(first) != m_heatmap.trials)
            return recompute();
        m_heatmap.add(m_data, m_heatmap.trials);
        update();
    });
}

void HeatmapWidget::setParameters(std::size_t x, std::size_t y) {
    m_x = x;
    m_y = y;
    recompute();
}

void HeatmapWidget::recompute() {
    m_heatmap = HeatmapData::compute(m_data, m_x, m_y);
    update();
}

QRectF HeatmapWidget::plotArea() const {
    // Room for value labels on the left and below, the colour bar and its times ("14.35 ms") on the right.
    return QRectF(70, 10, std::max(10, width() - 70 - kBarMargin), std::max(10, height() - 10 - 48));
}

QRectF HeatmapWidget::cellRect(const QRectF& area, int column, int row) const {
    double w = area.width() / m_heatmap.columns;
    double h = area.height() / m_heatmap.rows;
    // Row 0 (the parameter's first value) at the bottom, like a chart.
    return QRectF(area.left() + column * w, area.bottom() - (row + 1) * h, w, h);
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const HeatmapData& h = m_heatmap;
    if (h.columns == 0 || h.rows == 0) {
        painter.drawText(rect(), Qt::AlignCenter, tr("Pick two parameters of a run."));
        return;
    }
    QRectF area = plotArea();
    for (int r = 0; r < h.rows; ++r)
        for (int c = 0; c < h.columns; ++c) {
            auto cell = static_cast<std::size_t>(r * h.columns + c);
            QColor colour = std::isfinite(h.best[cell]) ? rampColor(logPosition(h.best[cell], h.lo, h.hi))
                            : h.count[cell] > 0         ? QColor(200, 200, 200)
                                                        : palette().base().color();
            painter.fillRect(cellRect(area, c, r), colour);
        }
    painter.setPen(palette().mid().color());
    painter.drawRect(area);
    const auto& parameters = m_data.parameters();
    const Parameter& px = parameters[h.xParameter];
    const Parameter& py = parameters[h.yParameter];
    QFontMetrics metrics(font());
    painter.setPen(palette().text().color());
    int xStep = std::max(1, static_cast<int>(std::ceil(h.columns * 40.0 / area.width())));
    for (int c = 0; c < h.columns; c += xStep) {
        QRectF cell = cellRect(area, c, 0);
        painter.drawText(QRectF(cell.center().x() - 30, area.bottom() + 2, 60, 16), Qt::AlignHCenter,
                         QString::fromStdString(toString(px.values[static_cast<std::size_t>(c)])));
    }
    int yStep = std::max(1, static_cast<int>(std::ceil(h.rows * 16.0 / area.height())));
    for (int r = 0; r < h.rows; r += yStep) {
        QRectF cell = cellRect(area, 0, r);
        painter.drawText(QRectF(area.left() - 46, cell.center().y() - 8, 42, 16),
                         Qt::AlignRight | Qt::AlignVCenter,
                         QString::fromStdString(toString(py.values[static_cast<std::size_t>(r)])));
    }
    painter.drawText(QRectF(area.left(), area.bottom() + 20, area.width(), 20), Qt::AlignHCenter,
                     QString::fromStdString(px.name));
    painter.save();
    painter.translate(12, area.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-area.height() / 2, -10, area.height(), 20), Qt::AlignHCenter,
                     QString::fromStdString(py.name));
    painter.restore();

    // Colour bar: fastest at the top.
    QRectF bar(area.right() + 12, area.top(), 12, area.height());
    for (int i = 0; i < static_cast<int>(bar.height()); ++i)
        painter.fillRect(QRectF(bar.left(), bar.top() + i, bar.width(), 1), rampColor(i / bar.height()));
    if (std::isfinite(h.lo)) {
        const double labelWidth = kBarMargin - 12 - bar.width() - 4;
        painter.drawText(QRectF(bar.right() + 2, bar.top(), labelWidth, 16), Qt::AlignLeft, formatMs(h.lo));
        painter.drawText(QRectF(bar.right() + 2, bar.bottom() - 16, labelWidth, 16), Qt::AlignLeft,
                         formatMs(h.hi));
    }
    int selected = m_data.selectedRow();
    if (selected >= 0) {
        const Trial& t = m_data.trials()[static_cast<std::size_t>(selected)];
        int c = m_data.position(h.xParameter, t.config[h.xParameter]);
        int r = m_data.position(h.yParameter, t.config[h.yParameter]);
        if (c >= 0 && r >= 0) {
            painter.setPen(QPen(Qt::red, 2));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(cellRect(area, c, r).adjusted(1, 1, -1, -1));
        }
    }
}

void HeatmapWidget::mousePressEvent(QMouseEvent* event) {
    const HeatmapData& h = m_heatmap;
    QRectF area = plotArea();
    if (event->button() != Qt::LeftButton || h.columns == 0 || !area.contains(event->position()))
        return;
    int c = static_cast<int>((event->position().x() - area.left()) / area.width() * h.columns);
    int r = static_cast<int>((area.bottom() - event->position().y()) / area.height() * h.rows);
    c = std::clamp(c, 0, h.columns - 1);
    r = std::clamp(r, 0, h.rows - 1);
    int trial = h.bestTrial[static_cast<std::size_t>(r * h.columns + c)];
    if (trial >= 0)
        m_data.select(trial);
}

} // namespace ts::gui
