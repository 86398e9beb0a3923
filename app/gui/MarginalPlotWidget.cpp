#include "MarginalPlotWidget.h"

#include "ChartExporter.h"
#include "ColorMap.h"
#include "RunData.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace ts::gui {

MarginalPlotWidget::MarginalPlotWidget(RunData& data, QWidget* parent) : QWidget(parent), m_data(data) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    ChartExporter::installMenu(this);
}

void MarginalPlotWidget::recompute() {
    const auto& parameters = m_data.parameters();
    std::vector<std::vector<std::vector<double>>> times(parameters.size());
    for (std::size_t p = 0; p < parameters.size(); ++p)
        times[p].resize(parameters[p].values.size());
    m_lo = INFINITY;
    m_hi = -INFINITY;
    const auto& trials = m_data.trials();
    for (std::size_t row = 0; row < trials.size(); ++row) {
        const Trial& t = trials[row];
        if (t.measurement.status != MeasureStatus::Ok)
            continue;
        m_lo = std::min(m_lo, t.measurement.objective);
        m_hi = std::max(m_hi, t.measurement.objective);
        for (std::size_t p = 0; p < parameters.size(); ++p) {
            int position = m_data.trialPosition(row, p);
            if (position >= 0)
                times[p][static_cast<std::size_t>(position)].push_back(t.measurement.objective);
        }
    }
    m_marginals.assign(parameters.size(), {});
    for (std::size_t p = 0; p < parameters.size(); ++p) {
        Marginal& m = m_marginals[p];
        for (auto& list : times[p]) {
            m.count.push_back(static_cast<int>(list.size()));
            if (list.empty()) {
                m.best.push_back(INFINITY);
                m.median.push_back(INFINITY);
                continue;
            }
            auto middle = list.begin() + static_cast<std::ptrdiff_t>(list.size() / 2);
            std::nth_element(list.begin(), middle, list.end());
            m.median.push_back(*middle);
            m.best.push_back(*std::min_element(list.begin(), list.end()));
        }
    }
    update();
}

void MarginalPlotWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const auto& parameters = m_data.parameters();
    if (m_marginals.empty() || !std::isfinite(m_lo)) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No Ok trials yet."));
        return;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    int n = static_cast<int>(m_marginals.size());
    int columns =
        std::max(1, static_cast<int>(std::ceil(std::sqrt(n * width() / std::max(1.0, double(height()))))));
    columns = std::min(columns, n);
    int rows = (n + columns - 1) / columns;
    double cw = double(width()) / columns, ch = double(height()) / rows;
    double hi = m_hi > m_lo ? m_hi : m_lo * 2;
    for (int p = 0; p < n; ++p) {
        QRectF cell((p % columns) * cw, (p / columns) * ch, cw, ch);
        QRectF plot = cell.adjusted(8, 18, -6, -6);
        painter.setPen(palette().mid().color());
        painter.drawRect(plot);
        painter.setPen(palette().text().color());
        painter.drawText(QRectF(cell.left() + 4, cell.top() + 1, cell.width() - 8, 16), Qt::AlignLeft,
                         QString::fromStdString(parameters[static_cast<std::size_t>(p)].name));
        const Marginal& m = m_marginals[static_cast<std::size_t>(p)];
        int values = static_cast<int>(m.best.size());
        if (values == 0)
            continue;
        auto xOf = [&](int v) { return plot.left() + (v + 0.5) * plot.width() / values; };
        // Fastest at the top.
        auto yOf = [&](double t) { return plot.top() + logPosition(t, m_lo, hi) * plot.height(); };
        QPointF previous;
        bool havePrevious = false;
        for (int v = 0; v < values; ++v) {
            if (!std::isfinite(m.best[static_cast<std::size_t>(v)])) {
                havePrevious = false;
                continue;
            }
            QPointF best(xOf(v), yOf(m.best[static_cast<std::size_t>(v)]));
            painter.setPen(QPen(QColor(150, 150, 150), 2));
            double my = yOf(m.median[static_cast<std::size_t>(v)]);
            painter.drawLine(QPointF(best.x() - 4, my), QPointF(best.x() + 4, my));
            painter.setPen(QPen(QColor(30, 90, 200), 1.5));
            if (havePrevious)
                painter.drawLine(previous, best);
            painter.setBrush(rampColor(logPosition(m.best[static_cast<std::size_t>(v)], m_lo, hi)));
            painter.drawEllipse(best, 3.5, 3.5);
            painter.setBrush(Qt::NoBrush);
            previous = best;
            havePrevious = true;
        }
    }
}

} // namespace ts::gui
