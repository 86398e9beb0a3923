#include "charts/HistogramWidget.h"

#include "charts/ChartExporter.h"
#include "window/TimeFormat.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace ts::gui {

HistogramWidget::HistogramWidget(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    ChartExporter::installMenu(this);
}

void HistogramWidget::setSamples(std::vector<double> samples, double median) {
    m_samples = std::move(samples);
    m_median = median;
    m_bins.clear();
    if (!m_samples.empty()) {
        auto [lo, hi] = std::minmax_element(m_samples.begin(), m_samples.end());
        m_lo = *lo;
        m_hi = *hi;
        int count = std::max(1, static_cast<int>(std::ceil(std::log2(m_samples.size()))) + 1);
        m_bins.assign(static_cast<std::size_t>(count), 0);
        double width = (m_hi - m_lo) / count;
        for (double s : m_samples) {
            int bin = width > 0 ? static_cast<int>((s - m_lo) / width) : 0;
            ++m_bins[static_cast<std::size_t>(std::clamp(bin, 0, count - 1))];
        }
    }
    update();
}

void HistogramWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (m_bins.empty()) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No samples."));
        return;
    }
    QRectF plot = QRectF(rect()).adjusted(10, 8, -10, -22);
    int most = *std::max_element(m_bins.begin(), m_bins.end());
    double w = plot.width() / static_cast<double>(m_bins.size());
    for (std::size_t b = 0; b < m_bins.size(); ++b) {
        double h = plot.height() * m_bins[b] / std::max(1, most);
        painter.fillRect(QRectF(plot.left() + b * w + 1, plot.bottom() - h, w - 2, h), QColor(70, 130, 200));
    }
    painter.setPen(palette().text().color());
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.drawText(QRectF(plot.left(), plot.bottom() + 2, 100, 18), Qt::AlignLeft, formatMs(m_lo));
    painter.drawText(QRectF(plot.right() - 100, plot.bottom() + 2, 100, 18), Qt::AlignRight, formatMs(m_hi));
    if (m_hi > m_lo) {
        double x = plot.left() + (m_median - m_lo) / (m_hi - m_lo) * plot.width();
        painter.setPen(QPen(Qt::red, 1.5, Qt::DashLine));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
}

} // namespace ts::gui
