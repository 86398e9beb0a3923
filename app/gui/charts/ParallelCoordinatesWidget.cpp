#include "charts/ParallelCoordinatesWidget.h"

#include "charts/ChartExporter.h"
#include "charts/ColorMap.h"
#include "charts/PointPicker.h"
#include "data/RunData.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <cmath>

namespace ts::gui {

namespace {
constexpr double kTop = 28, kBottom = 22, kSide = 40;
constexpr double kRow = 16;           // height of a label row
constexpr double kLabelWidth = 90;    // widest label
constexpr double kMinLabelWidth = 48; // narrower than this: labels stagger over two rows
constexpr double kLabelGap = 4;       // between neighbouring labels of a row

// The time at normalised position `position` of the time axis over [lo, hi] (fastest at the top).
double timeAt(double position, double lo, double hi) {
    return std::exp(std::log(hi) - position * (std::log(hi) - std::log(lo)));
}
} // namespace

ParallelCoordinatesWidget::ParallelCoordinatesWidget(RunData& data, QWidget* parent)
    : QWidget(parent), m_data(data) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    ChartExporter::installMenu(this);
    connect(&data, &RunData::selectionChanged, this, qOverload<>(&QWidget::update));
    connect(&data, &RunData::resetDone, this, [this] {
        m_brushes.clear();
        m_timeBrush.reset();
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
    storeBrush(axis, low, high);
    invalidate();
    emit brushesChanged();
}

void ParallelCoordinatesWidget::storeBrush(int axis, double low, double high) {
    if (low > high)
        std::swap(low, high);
    low = std::clamp(low, 0.0, 1.0);
    high = std::clamp(high, 0.0, 1.0);
    m_brushes[axis] = {low, high};
    if (axis != axisCount() - 1)
        return;
    const auto [lo, hi] = m_timeBrushBounds = timeBounds();
    if (!(lo > 0) || !std::isfinite(hi))
        m_timeBrush = std::make_pair(1.0, 0.0); // no Ok time: keeps nothing
    else if (!(hi > lo))                        // one time, drawn at the top
        m_timeBrush = high >= 1.0 - 1e-9 ? std::make_pair(lo, hi) : std::make_pair(1.0, 0.0);
    else // a little wider than the brush, so that the trials drawn on its edges stay in
        m_timeBrush = std::make_pair(timeAt(high, lo, hi) * (1 - 1e-9), timeAt(low, lo, hi) * (1 + 1e-9));
}

void ParallelCoordinatesWidget::eraseBrush(int axis) {
    m_brushes.erase(axis);
    if (axis == axisCount() - 1)
        m_timeBrush.reset();
}

std::pair<double, double> ParallelCoordinatesWidget::timeBounds() const {
    double lo = INFINITY, hi = -INFINITY;
    for (const Trial& t : m_data.trials())
        if (t.measurement.status == MeasureStatus::Ok) {
            lo = std::min(lo, t.measurement.objective);
            hi = std::max(hi, t.measurement.objective);
        }
    return {lo, hi};
}

void ParallelCoordinatesWidget::clearBrushes() {
    m_brushes.clear();
    m_timeBrush.reset();
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
    return height() - bottomMargin() - position * (height() - topMargin() - bottomMargin());
}

double ParallelCoordinatesWidget::fromY(double y) const {
    return std::clamp(
        (height() - bottomMargin() - y) / std::max(1.0, height() - topMargin() - bottomMargin()), 0.0, 1.0);
}

bool ParallelCoordinatesWidget::staggered() const {
    const int n = axisCount();
    return n > 1 && (width() - 2 * kSide) / (n - 1) - kLabelGap < kMinLabelWidth;
}

double ParallelCoordinatesWidget::topMargin() const {
    return staggered() ? kTop + kRow : kTop;
}

double ParallelCoordinatesWidget::bottomMargin() const {
    return staggered() ? kBottom + kRow : kBottom;
}

std::vector<ParallelCoordinatesWidget::Label> ParallelCoordinatesWidget::labels() const {
    std::vector<Label> labels;
    const auto& parameters = m_data.parameters();
    if (parameters.empty())
        return labels;
    const int n = axisCount();
    const bool twoRows = staggered();
    const double spacing = n > 1 ? (width() - 2 * kSide) / (n - 1) : width();
    // Labels of one row are `spacing` apart, or twice that when the rows alternate.
    const double labelWidth = std::clamp((twoRows ? 2 : 1) * spacing - kLabelGap, 1.0, kLabelWidth);
    for (int a = 0; a < n; ++a) {
        const double x = axisX(a);
        const double shift = twoRows && a % 2 == 1 ? kRow : 0.0;
        const bool time = a == n - 1;
        labels.push_back(
            {QRectF(x - labelWidth / 2, 4 + shift, labelWidth, kRow),
             time ? tr("time") : QString::fromStdString(parameters[static_cast<std::size_t>(a)].name)});
        if (time)
            continue;
        const auto& values = parameters[static_cast<std::size_t>(a)].values;
        if (!values.empty())
            labels.push_back(
                {QRectF(x - labelWidth / 2, height() - bottomMargin() + 2 + shift, labelWidth, kRow),
                 QString::fromStdString(toString(values.front())) + QString::fromUtf8("…") +
                     QString::fromStdString(toString(values.back()))});
    }
    return labels;
}

std::vector<QPointF> ParallelCoordinatesWidget::polyline(std::size_t row) const {
    const auto [lo, hi] = timeBounds();
    return polyline(row, lo, hi);
}

std::vector<QPointF> ParallelCoordinatesWidget::polyline(std::size_t row, double lo, double hi) const {
    std::vector<double> pos;
    std::vector<QPointF> points;
    if (row >= m_data.trials().size() || !positions(row, lo, hi, pos))
        return points;
    for (std::size_t a = 0; a < pos.size(); ++a)
        points.emplace_back(axisX(static_cast<int>(a)), toY(pos[a]));
    return points;
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

bool ParallelCoordinatesWidget::keeps(std::size_t row) const {
    const auto& parameters = m_data.parameters();
    const Trial& t = m_data.trials()[row];
    for (const auto& [axis, range] : m_brushes) {
        if (static_cast<std::size_t>(axis) >= parameters.size()) {
            if (t.measurement.status != MeasureStatus::Ok || !m_timeBrush ||
                t.measurement.objective < m_timeBrush->first || t.measurement.objective > m_timeBrush->second)
                return false;
            continue;
        }
        const auto& values = parameters[static_cast<std::size_t>(axis)].values;
        const int position = m_data.trialPosition(row, static_cast<std::size_t>(axis));
        if (position < 0)
            return false;
        const double v = values.size() == 1 ? 0.5 : position / static_cast<double>(values.size() - 1);
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
    m_drawn.clear();
    const auto [lo, hi] = timeBounds();
    // The time brush keeps its times: on an axis whose ends moved it is drawn where they now are.
    if (m_timeBrush && m_timeBrushBounds != std::make_pair(lo, hi) && lo > 0 && hi > lo) {
        m_brushes[axisCount() - 1] = {std::clamp(1.0 - logPosition(m_timeBrush->second, lo, hi), 0.0, 1.0),
                                      std::clamp(1.0 - logPosition(m_timeBrush->first, lo, hi), 0.0, 1.0)};
        m_timeBrushBounds = {lo, hi};
    }
    std::vector<std::size_t> ok;
    for (std::size_t row = 0; row < trials.size(); ++row)
        if (trials[row].measurement.status == MeasureStatus::Ok)
            ok.push_back(row);
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
            bool in = keeps(row);
            if (in != (pass == 1))
                continue;
            m_drawn.push_back(row);
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
        auto it = m_brushes.find(a);
        if (it != m_brushes.end()) {
            QRectF box(x - 6, toY(it->second.second), 12, toY(it->second.first) - toY(it->second.second));
            painter.setPen(QPen(QColor(30, 90, 200), 1.5));
            painter.setBrush(QColor(30, 90, 200, 60));
            painter.drawRect(box);
            painter.setBrush(Qt::NoBrush);
        }
    }
    painter.setPen(QPen(palette().text().color(), 1));
    const QFontMetrics metrics(font());
    for (const Label& label : labels())
        painter.drawText(
            label.rect, Qt::AlignHCenter,
            metrics.elidedText(label.text, Qt::ElideRight, static_cast<int>(label.rect.width())));
    int selected = m_data.selectedRow();
    if (selected >= 0) {
        const auto [lo, hi] = timeBounds();
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
    if (event->button() != Qt::LeftButton)
        return;
    for (int a = 0; a < axisCount(); ++a)
        if (std::abs(event->position().x() - axisX(a)) <= 10) {
            m_dragAxis = a;
            m_dragStart = fromY(event->position().y());
        }
    if (m_dragAxis >= 0 || m_data.parameters().empty())
        return;
    if (!m_cacheValid || m_cache.size() != size() * devicePixelRatioF())
        render();
    const auto [lo, hi] = timeBounds();
    PointPicker picker;
    for (std::size_t row : m_drawn)
        picker.addPolyline(static_cast<int>(row), polyline(row, lo, hi));
    const int row = picker.pick(event->position());
    if (row >= 0)
        m_data.select(row);
}

void ParallelCoordinatesWidget::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragAxis < 0)
        return;
    storeBrush(m_dragAxis, m_dragStart, fromY(event->position().y()));
    invalidate();
}

void ParallelCoordinatesWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (m_dragAxis < 0)
        return;
    double now = fromY(event->position().y());
    if (std::abs(now - m_dragStart) < 0.01)
        eraseBrush(m_dragAxis); // a click on an axis clears its brush
    else
        storeBrush(m_dragAxis, m_dragStart, now);
    m_dragAxis = -1;
    invalidate();
    emit brushesChanged();
}

bool ParallelCoordinatesWidget::event(QEvent* event) {
    if (event->type() != QEvent::ToolTip)
        return QWidget::event(event);
    auto* help = static_cast<QHelpEvent*>(event);
    for (const Label& label : labels())
        if (label.rect.contains(help->pos())) {
            QToolTip::showText(help->globalPos(), label.text, this);
            return true;
        }
    QToolTip::hideText();
    event->ignore();
    return true;
}

} // namespace ts::gui
