#include "charts/PlotLegend.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QTimer>
#include <algorithm>

namespace ts::gui {

namespace {

constexpr int kInset = 6;           // px between the plot area's corner and the legend
constexpr double kFontScale = 0.85; // of the view's font
// Room around an entry's marker and label (Qt Charts' legend item margins and spacing).
constexpr QSizeF kEntryPadding(24, 9);

} // namespace

PlotLegend::PlotLegend(QChartView* view, Qt::Corner corner) : QObject(view), m_view(view), m_corner(corner) {
    QChart* chart = view->chart();
    chart->legend()->detachFromChart();
    chart->legend()->setAlignment(Qt::AlignLeft); // one entry per row
    connect(chart, &QChart::plotAreaChanged, this, &PlotLegend::place);
    view->installEventFilter(this);
    place();
}

void PlotLegend::place() {
    QLegend* legend = m_view->chart()->legend();
    // A theme change (ChartPalette, on a palette change) resets the legend's font and colours: set again.
    QFont font = m_view->font();
    font.setPointSizeF(font.pointSizeF() * kFontScale);
    if (legend->font() != font)
        legend->setFont(font);
    QColor background = m_view->palette().color(QPalette::Base);
    background.setAlpha(210);
    legend->setBackgroundVisible(true);
    legend->setBrush(background);
    legend->setPen(QPen(m_view->palette().color(QPalette::Mid)));
    // A detached legend's size hint is that of its largest entry: size it for its visible entries, one a row.
    const QFontMetricsF metrics(font);
    int rows = 0;
    qreal widest = 0;
    for (const QLegendMarker* marker : legend->markers())
        if (marker->isVisible()) {
            ++rows;
            widest = std::max(widest, metrics.horizontalAdvance(marker->label()));
        }
    // Entries in as many columns as a short plot needs (the legend lays them out top to bottom, then right).
    const QRectF plot = m_view->chart()->plotArea();
    const qreal rowHeight = metrics.height() + kEntryPadding.height();
    const qreal room = plot.height() - 2 * kInset - 2 * kEntryPadding.height();
    const int perColumn = std::max(1, static_cast<int>(room / rowHeight));
    const int columns = rows == 0 ? 0 : (rows + perColumn - 1) / perColumn;
    const QSizeF size(columns * (widest + metrics.height() + kEntryPadding.width()),
                      columns == 0 ? 0 : std::min(rows, perColumn) * rowHeight + 2 * kEntryPadding.height());
    const QSizeF shown = size.boundedTo(plot.size() - QSizeF(2 * kInset, 2 * kInset));
    const qreal left =
        m_corner == Qt::TopRightCorner ? plot.right() - kInset - shown.width() : plot.left() + kInset;
    legend->setGeometry(QRectF(QPointF(left, plot.top() + kInset), shown));
    legend->update();
}

bool PlotLegend::eventFilter(QObject* watched, QEvent* event) {
    // After ChartPalette (an earlier filter, so called later) has applied the theme.
    if (watched == m_view && (event->type() == QEvent::PaletteChange || event->type() == QEvent::Polish))
        QTimer::singleShot(0, this, &PlotLegend::place);
    return QObject::eventFilter(watched, event);
}

} // namespace ts::gui
