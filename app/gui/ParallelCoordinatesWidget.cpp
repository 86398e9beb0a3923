#include "ParallelCoordinatesWidget.h"

#include "ChartExporter.h"
#include "ColorMap.h"
#include "RunData.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <cmath>

namespace ts::gui {

namespace {
constexpr double kTop = 28, kBottom = 22, kSide = 40;
}

ParallelCoordinatesWidget::ParallelCoordinatesWidget(RunData& data, QWidget* parent)
    : QWidget(parent), m_data(data) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    ChartExporter::installMenu(this);
    connect(&data, &RunData::selectionChanged, this, qOverload<>(&QWidget::update));
    connect(&data, &RunData::resetDone, this, [this] {
        m_brushes.clear();
        invalidate();
    });
}

int ParallelCoordinatesWidget::axisCount() const {
    return static_cast<int>(m_data.parameters().size()) + 1;
}

void ParallelCoordinatesWidget::invalidate() {
    m_cacheValid = false;
    update();
}

void ParallelCoordinatesWidget::setBrush(int axis, double low, double high) {
    if (low > high)
        std::swap(low, high);
    m_brushes[axis] = {std::clamp(low, 0.0, 1.0), std::clamp(high, 0.0, 1.0)};
    invalidate();
    emit brushesChanged();
}

void ParallelCoordinatesWidget::clearBrushes() {
    m_brushes.clear();
    invalidate();
    emit brushesChanged();
}

std::optional<std::pair<int, int>> ParallelCoordinatesWidget::brushedPositions(std::size_t parameter) const {
    auto it = m_brushes.find(static_cast<int>(parameter));
    if (it == m_brushes.end() || parameter >= m_data.parameters().size())
        return std::nullopt;
    int n = static_cast<int>(m_data.parameters()[parameter].values.size());
    double span = std::max(1, n - 1);
    int first = static_cast<int>(std::ceil(it->second.first * span - 1e-9));
    int last = static_cast<int>(std::floor(it->second.second * span + 1e-9));
    return std::make_pair(first, last);
}

double ParallelCoordinatesWidget::axisX(int axis) const {
    int n = axisCount();
    return n <= 1 ? width() / 2.0 : kSide + axis * (width() - 2 * kSide) / (n - 1);
}

double ParallelCoordinatesWidget::toY(double position) const {
    return height() - kBottom - position * (height() - kTop - kBottom);
}

double ParallelCoordinatesWidget::fromY(double y) const {
    return std::clamp((height() - kBottom - y) / std::max(1.0, height() - kTop - kBottom), 0.0, 1.0);
}

bool ParallelCoordinatesWidget::positions(std::size_t row, double lo, double hi,
                                          std::vector<double>& out) const {
    const Trial& t = m_data.trials()[row];
    if (t.measurement.status != MeasureStatus::Ok)
        return false;
    const auto& parameters = m_data.parameters();
    out.resize(parameters.size() + 1);
    for (std::size_t p = 0; p < parameters.size(); ++p) {
        int position = m_data.trialPosition(row, p);
        if (position < 0)
            return false;
        auto n = static_cast<double>(std::max<std::size_t>(1, parameters[p].values.size() - 1));
        out[p] = parameters[p].values.size() == 1 ? 0.5 : position / n;
    }
    out.back() = 1.0 - logPosition(t.measurement.objective, lo, hi); // fastest at the top
    return true;
}

bool ParallelCoordinatesWidget::passes(const std::vector<double>& positions) const {
    for (const auto& [axis, range] : m_brushes) {
        double v = positions[static_cast<std::size_t>(axis)];
        if (v < range.first - 1e-9 || v > range.second + 1e-9)
            return false;
    }
    return true;
}

void ParallelCoordinatesWidget::render() {
    m_cache = QImage(size() * devicePixelRatioF(), QImage::Format_ARGB32_Premultiplied);
    m_cache.setDevicePixelRatio(devicePixelRatioF());
    m_cache.fill(palette().base().color());
    m_cacheValid = true;
    const auto& trials = m_data.trials();
    const auto& parameters = m_data.parameters();
    if (parameters.empty() || trials.empty())
        return;
    double lo = INFINITY, hi = -INFINITY;
    std::vector<std::size_t> ok;
    for (std::size_t row = 0; row < trials.size(); ++row)
        if (trials[row].measurement.status == MeasureStatus::Ok) {
            ok.push_back(row);
            lo = std::min(lo, trials[row].measurement.objective);
            hi = std::max(hi, trials[row].measurement.objective);
        }
    std::vector<std::size_t> drawn;
    double stride = std::max(1.0, static_cast<double>(ok.size()) / kMaxLines);
    for (double i = 0; i < static_cast<double>(ok.size()); i += stride)
        drawn.push_back(ok[static_cast<std::size_t>(i)]);
    if (auto best = m_data.bestRow())
        drawn.push_back(*best);
    // Slow lines first so the fast ones end on top.
    std::sort(drawn.begin(), drawn.end(), [&trials](std::size_t a, std::size_t b) {
        return trials[a].measurement.objective > trials[b].measurement.objective;
    });
    QPainter painter(&m_cache);
    std::vector<double> pos;
    std::vector<QPointF> points(parameters.size() + 1);
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t row : drawn) {
            if (!positions(row, lo, hi, pos))
                continue;
            bool in = passes(pos);
            if (in != (pass == 1))
                continue;
            for (std::size_t a = 0; a < pos.size(); ++a)
                points[a] = QPointF(axisX(static_cast<int>(a)), toY(pos[a]));
            QColor colour = in ? rampColor(1.0 - pos.back()) : QColor(210, 210, 210);
            colour.setAlphaF(in ? 0.55 : 0.35);
            painter.setPen(QPen(colour, 1.0));
            painter.drawPolyline(points.data(), static_cast<int>(points.size()));
        }
}

void ParallelCoordinatesWidget::paintEvent(QPaintEvent*) {
    if (!m_cacheValid || m_cache.size() != size() * devicePixelRatioF())
        render();
    QPainter painter(this);
    painter.drawImage(0, 0, m_cache);
    const auto& parameters = m_data.parameters();
    if (parameters.empty()) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No run yet."));
        return;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    // Axes, names, value ends and brushes.
    for (int a = 0; a < axisCount(); ++a) {
        double x = axisX(a);
        painter.setPen(QPen(palette().text().color(), 1));
        painter.drawLine(QPointF(x, toY(0)), QPointF(x, toY(1)));
        bool time = a == axisCount() - 1;
        QString name =
            time ? tr("time") : QString::fromStdString(parameters[static_cast<std::size_t>(a)].name);
        painter.drawText(QRectF(x - 45, 4, 90, 18), Qt::AlignHCenter, name);
        if (!time) {
            const auto& values = parameters[static_cast<std::size_t>(a)].values;
            if (!values.empty()) {
                painter.drawText(QRectF(x - 45, height() - kBottom + 2, 90, 16), Qt::AlignHCenter,
                                 QString::fromStdString(toString(values.front())) + QString::fromUtf8("…") +
                                     QString::fromStdString(toString(values.back())));
            }
        }
        auto it = m_brushes.find(a);
        if (it != m_brushes.end()) {
            QRectF box(x - 6, toY(it->second.second), 12, toY(it->second.first) - toY(it->second.second));
            painter.setPen(QPen(QColor(30, 90, 200), 1.5));
            painter.setBrush(QColor(30, 90, 200, 60));
            painter.drawRect(box);
            painter.setBrush(Qt::NoBrush);
        }
    }
    int selected = m_data.selectedRow();
    if (selected >= 0) {
        double lo = INFINITY, hi = -INFINITY;
        for (const Trial& t : m_data.trials())
            if (t.measurement.status == MeasureStatus::Ok) {
                lo = std::min(lo, t.measurement.objective);
                hi = std::max(hi, t.measurement.objective);
            }
        std::vector<double> pos;
        if (positions(static_cast<std::size_t>(selected), lo, hi, pos)) {
            QPainterPath path;
            for (std::size_t a = 0; a < pos.size(); ++a) {
                QPointF p(axisX(static_cast<int>(a)), toY(pos[a]));
                if (a == 0)
                    path.moveTo(p);
                else
                    path.lineTo(p);
            }
            painter.setPen(QPen(Qt::red, 2.5));
            painter.drawPath(path);
        }
    }
}

void ParallelCoordinatesWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    m_cacheValid = false;
}

void ParallelCoordinatesWidget::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        invalidate(); // the cached lines lie on the old background
}

void ParallelCoordinatesWidget::mousePressEvent(QMouseEvent* event) {
    m_dragAxis = -1;
    for (int a = 0; a < axisCount(); ++a)
        if (std::abs(event->position().x() - axisX(a)) <= 10) {
            m_dragAxis = a;
            m_dragStart = fromY(event->position().y());
        }
}

void ParallelCoordinatesWidget::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragAxis < 0)
        return;
    double now = fromY(event->position().y());
    m_brushes[m_dragAxis] = {std::min(m_dragStart, now), std::max(m_dragStart, now)};
    invalidate();
}

void ParallelCoordinatesWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (m_dragAxis < 0)
        return;
    double now = fromY(event->position().y());
    if (std::abs(now - m_dragStart) < 0.01)
        m_brushes.erase(m_dragAxis); // a click on an axis clears its brush
    else
        m_brushes[m_dragAxis] = {std::min(m_dragStart, now), std::max(m_dragStart, now)};
    m_dragAxis = -1;
    invalidate();
    emit brushesChanged();
}

} // namespace ts::gui
