#include "charts/MarginalPlotWidget.h"

#include "charts/ChartExporter.h"
#include "charts/ChartSupport.h"
#include "charts/ColorMap.h"
#include "charts/PointPicker.h"
#include "data/RunData.h"
#include "window/TimeFormat.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace ts::gui {

MarginalPlotWidget::MarginalPlotWidget(RunData& data, QWidget* parent) : QWidget(parent), m_data(data) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    connect(&data, &RunData::selectionChanged, this, qOverload<>(&QWidget::update));
    ChartExporter::installMenu(this);
    setToolTip(legend());
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

namespace {

constexpr double kLegendHeight = 20; // the legend line on top
constexpr double kNameHeight = 18;   // a panel's parameter name
constexpr double kValueHeight = 16;  // a panel's value labels

} // namespace

QRectF MarginalPlotWidget::gridRect() const {
    return QRectF(rect()).adjusted(timeGutter(), kLegendHeight, 0, 0);
}

int MarginalPlotWidget::timeGutter() const {
    int widest = 0;
    for (double tick : timeTicks())
        widest = std::max(widest, fontMetrics().horizontalAdvance(formatMs(tick)));
    return widest + 6;
}

QList<double> MarginalPlotWidget::timeTicks() const {
    if (!std::isfinite(m_lo) || m_lo <= 0)
        return {};
    QList<double> ticks;
    for (double tick : charts::logTicks(m_lo, highTime()))
        if (tick >= m_lo * (1 - 1e-9) && tick <= highTime() * (1 + 1e-9))
            ticks.push_back(tick);
    return ticks;
}

QRectF MarginalPlotWidget::cellRect(int parameter) const {
    const QRectF grid = gridRect();
    int n = static_cast<int>(m_marginals.size());
    int columns =
        std::max(1, static_cast<int>(std::ceil(std::sqrt(n * grid.width() / std::max(1.0, grid.height())))));
    columns = std::min(columns, n);
    int rows = (n + columns - 1) / columns;
    double cw = grid.width() / columns, ch = grid.height() / rows;
    return QRectF(grid.left() + (parameter % columns) * cw, grid.top() + (parameter / columns) * ch, cw, ch);
}

QRectF MarginalPlotWidget::plotRect(int parameter) const {
    return cellRect(parameter).adjusted(8, kNameHeight, -6, -kValueHeight - 2);
}

QString MarginalPlotWidget::legend() const {
    return tr("dot and line: best time per value; grey tick: median; colour: fast to slow; time on a log "
              "scale, fastest on top");
}

std::vector<MarginalPlotWidget::Text> MarginalPlotWidget::valueLabels() const {
    std::vector<Text> labels;
    const auto& parameters = m_data.parameters();
    const QFontMetrics metrics = fontMetrics();
    for (std::size_t p = 0; p < m_marginals.size() && p < parameters.size(); ++p) {
        const auto& values = parameters[p].values;
        const int count = static_cast<int>(values.size());
        if (count == 0)
            continue;
        const QRectF plot = plotRect(static_cast<int>(p));
        const double slot = plot.width() / count;
        // Every `stride`-th value, so that no two labels touch; the last one always.
        int widest = 0;
        for (const Value& v : values)
            widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(toString(v))));
        const int stride = std::max(1, static_cast<int>(std::ceil((widest + 6) / std::max(1.0, slot))));
        std::vector<int> shown;
        for (int v = 0; v < count; v += stride)
            shown.push_back(v);
        if (shown.back() != count - 1) {
            if (count - 1 - shown.back() < stride && shown.size() > 1)
                shown.back() = count - 1;
            else
                shown.push_back(count - 1);
        }
        const double room = std::max(1.0, std::min<double>(widest + 4, stride * slot - 2));
        for (int v : shown) {
            const double x = plot.left() + (v + 0.5) * slot;
            const QString text = metrics.elidedText(QString::fromStdString(toString(values[v])),
                                                    Qt::ElideRight, static_cast<int>(room));
            labels.push_back({QRectF(x - room / 2, plot.bottom() + 2, room, kValueHeight), text});
        }
    }
    return labels;
}

std::vector<MarginalPlotWidget::Text> MarginalPlotWidget::timeLabels() const {
    std::vector<Text> labels;
    if (m_marginals.empty())
        return labels;
    const double gutter = timeGutter();
    const double height = fontMetrics().height();
    // Left of every panel of the first column, where there is room for all ticks.
    for (std::size_t p = 0; p < m_marginals.size(); ++p) {
        if (cellRect(static_cast<int>(p)).left() > gridRect().left() + 0.5)
            continue;
        double lastBottom = -INFINITY;
        for (double tick : timeTicks()) {
            const double y = pointAt(p, 0, tick).y();
            const QRectF box(0, y - height / 2, gutter - 4, height);
            if (box.top() < lastBottom)
                continue; // too close to the previous tick in a short panel
            labels.push_back({box, formatMs(tick)});
            lastBottom = box.bottom();
        }
    }
    return labels;
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
                         painter.fontMetrics().elidedText(
                             QString::fromStdString(parameters[static_cast<std::size_t>(p)].name),
                             Qt::ElideRight, static_cast<int>(cell.width() - 8)));
        painter.setPen(QPen(palette().mid().color(), 1, Qt::DotLine));
        for (double tick : timeTicks()) {
            const double y = pointAt(static_cast<std::size_t>(p), 0, tick).y();
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        }
        painter.setPen(palette().text().color());
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
    painter.setPen(palette().text().color());
    for (const Text& label : valueLabels())
        painter.drawText(label.rect, Qt::AlignHCenter | Qt::AlignTop, label.text);
    for (const Text& label : timeLabels())
        painter.drawText(label.rect, Qt::AlignRight | Qt::AlignVCenter, label.text);
    painter.drawText(QRectF(4, 2, width() - 8, kLegendHeight - 2), Qt::AlignLeft | Qt::AlignVCenter,
                     painter.fontMetrics().elidedText(legend(), Qt::ElideRight, width() - 8));
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
