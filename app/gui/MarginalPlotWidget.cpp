#include "MarginalPlotWidget.h"

#include "ChartExporter.h"
#include "ColorMap.h"
#include "PointPicker.h"
#include "RunData.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace ts::gui {

MarginalPlotWidget::MarginalPlotWidget(RunData& data, QWidget* parent) : QWidget(parent), m_data(data) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    connect(&data, &RunData::selectionChanged, this, qOverload<>(&QWidget::update));
    ChartExporter::installMenu(this);
}

void MarginalPlotWidget::recompute() {
    const auto& parameters = m_data.parameters();
    std::vector<std::vector<std::vector<double>>> times(parameters.size());
    std::vector<std::vector<int>> bestRows(parameters.size());
    for (std::size_t p = 0; p < parameters.size(); ++p)
        times[p].resize(parameters[p].values.size());
    for (std::size_t p = 0; p < parameters.size(); ++p)
        bestRows[p].assign(parameters[p].values.size(), -1);
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
            if (position < 0)
                continue;
            auto& list = times[p][static_cast<std::size_t>(position)];
            int& best = bestRows[p][static_cast<std::size_t>(position)];
            if (best < 0 ||
                t.measurement.objective < trials[static_cast<std::size_t>(best)].measurement.objective)
                best = static_cast<int>(row);
            list.push_back(t.measurement.objective);
        }
    }
    m_marginals.assign(parameters.size(), {});
    for (std::size_t p = 0; p < parameters.size(); ++p) {
        Marginal& m = m_marginals[p];
        m.bestRow = bestRows[p];
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

QRectF MarginalPlotWidget::cellRect(int parameter) const {
    int n = static_cast<int>(m_marginals.size());
    int columns =
        std::max(1, static_cast<int>(std::ceil(std::sqrt(n * width() / std::max(1.0, double(height()))))));
    columns = std::min(columns, n);
    int rows = (n + columns - 1) / columns;
    double cw = double(width()) / columns, ch = double(height()) / rows;
    return QRectF((parameter % columns) * cw, (parameter / columns) * ch, cw, ch);
}

QRectF MarginalPlotWidget::plotRect(int parameter) const {
    return cellRect(parameter).adjusted(8, 18, -6, -6);
}

double MarginalPlotWidget::highTime() const {
    return m_hi > m_lo ? m_hi : m_lo * 2;
}

QPointF MarginalPlotWidget::pointAt(std::size_t parameter, int position, double time) const {
    const QRectF plot = plotRect(static_cast<int>(parameter));
    const auto values = static_cast<double>(m_marginals[parameter].best.size());
    // Fastest at the top.
    return {plot.left() + (position + 0.5) * plot.width() / values,
            plot.top() + logPosition(time, m_lo, highTime()) * plot.height()};
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
    double hi = highTime();
    for (int p = 0; p < n; ++p) {
        QRectF cell = cellRect(p);
        QRectF plot = plotRect(p);
        painter.setPen(palette().mid().color());
        painter.drawRect(plot);
        painter.setPen(palette().text().color());
        painter.drawText(QRectF(cell.left() + 4, cell.top() + 1, cell.width() - 8, 16), Qt::AlignLeft,
                         QString::fromStdString(parameters[static_cast<std::size_t>(p)].name));
        const Marginal& m = m_marginals[static_cast<std::size_t>(p)];
        int values = static_cast<int>(m.best.size());
        if (values == 0)
            continue;
        auto xOf = [&](int v) { return pointAt(static_cast<std::size_t>(p), v, m_lo).x(); };
        auto yOf = [&](double t) { return pointAt(static_cast<std::size_t>(p), 0, t).y(); };
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
    markSelection(painter);
}

void MarginalPlotWidget::markSelection(QPainter& painter) const {
    const int row = m_data.selectedRow();
    if (row < 0 || static_cast<std::size_t>(row) >= m_data.trials().size())
        return;
    const Trial& t = m_data.trials()[static_cast<std::size_t>(row)];
    if (t.measurement.status != MeasureStatus::Ok)
        return;
    painter.setPen(QPen(Qt::red, 2));
    painter.setBrush(Qt::NoBrush);
    for (std::size_t p = 0; p < m_marginals.size(); ++p) {
        const int position = m_data.trialPosition(static_cast<std::size_t>(row), p);
        if (position >= 0 && position < static_cast<int>(m_marginals[p].best.size()))
            painter.drawEllipse(pointAt(p, position, t.measurement.objective), 6.0, 6.0);
    }
}

void MarginalPlotWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !std::isfinite(m_lo))
        return;
    PointPicker picker;
    for (std::size_t p = 0; p < m_marginals.size(); ++p) {
        const Marginal& m = m_marginals[p];
        for (std::size_t v = 0; v < m.best.size(); ++v)
            if (m.bestRow[v] >= 0)
                picker.add(m.bestRow[v], pointAt(p, static_cast<int>(v), m.best[v]));
    }
    const int row = picker.pick(event->position());
    if (row >= 0)
        m_data.select(row);
}

} // namespace ts::gui
