#include "views/FeatureTable.h"

#include <QEvent>
#include <QHeaderView>
#include <QStyle>
#include <algorithm>

namespace ts::gui {

namespace {

QTableWidgetItem* featureItem(const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setToolTip(text);
    return item;
}

} // namespace

FeatureTable::FeatureTable(QWidget* parent) : QTableWidget(0, 2, parent) {
    setHorizontalHeaderLabels({tr("feature"), tr("value")});
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(0, QHeaderView::Fixed);
    horizontalHeader()->setSectionResizeMode(1, QHeaderView::Fixed); // fit() gives it the rest
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);      // fit() sizes rows to their wrapped text
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setWordWrap(true);
    setTextElideMode(Qt::ElideNone);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
}

void FeatureTable::setRows(const std::vector<std::pair<QString, QString>>& rows) {
    setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < rowCount(); ++r) {
        setItem(r, 0, featureItem(rows[static_cast<std::size_t>(r)].first));
        setItem(r, 1, featureItem(rows[static_cast<std::size_t>(r)].second));
    }
    m_fittedWidth = -1;
    fit();
}

void FeatureTable::resizeEvent(QResizeEvent* event) {
    QTableWidget::resizeEvent(event);
    fit();
}

// The viewport narrows when the vertical scroll bar appears (taller rows), which the table's own resize
// event does not see.
bool FeatureTable::viewportEvent(QEvent* event) {
    const bool handled = QTableWidget::viewportEvent(event);
    if (event->type() == QEvent::Resize)
        fit();
    return handled;
}

void FeatureTable::fit() {
    const int available = viewport()->width();
    if (available == m_fittedWidth)
        return;
    m_fittedWidth = available;
    int names = 0;
    for (int r = 0; r < rowCount(); ++r)
        if (const QTableWidgetItem* name = item(r, 0))
            names = std::max(names, fontMetrics().horizontalAdvance(name->text()));
    const int padding = 2 * (style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, this) + 1) + 8;
    setColumnWidth(0, std::max(40, std::min(names + padding, available / 2)));
    setColumnWidth(1, std::max(40, available - columnWidth(0)));
    resizeRowsToContents();
}

} // namespace ts::gui
