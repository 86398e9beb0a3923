#pragma once

// Whether widgets show their whole text, for the GUI tests: tab titles a tab bar elides, and table cells
// whose text is wider (or, wrapped, taller) than what the cell shows of it. Each returns one line per
// problem, naming the text; none for what is hidden or scrolled out of the window.

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QScrollBar>
#include <QStringList>
#include <QStyle>
#include <QStyleOptionTab>
#include <QTabBar>
#include <QTableView>

#include <algorithm>

namespace ts::test {

inline bool shown(const QWidget* widget) {
    return widget->isVisible() && !widget->visibleRegion().isEmpty();
}

// A tab whose title does not fit the text rectangle the style gives its tab (the one QTabBar elides to). A
// tab scrolled out of a bar too narrow for all of them keeps its whole title (the bar's scroll buttons
// bring it into view).
inline QStringList tabProblems(const QTabBar& bar) {
    QStringList problems;
    if (!shown(&bar))
        return problems;
    for (int i = 0; i < bar.count(); ++i) {
        if (!bar.isTabVisible(i))
            continue;
        QStyleOptionTab option;
        option.initFrom(&bar);
        option.shape = bar.shape();
        option.rect = bar.tabRect(i);
        option.text = bar.tabText(i);
        const QRect text = bar.style()->subElementRect(QStyle::SE_TabBarTabText, &option, &bar);
        const int needed = bar.fontMetrics().horizontalAdvance(QString(bar.tabText(i)).remove('&'));
        if (needed > text.width())
            problems << QString("tab \"%1\" shows %2 px of %3 px of title")
                            .arg(bar.tabText(i))
                            .arg(text.width())
                            .arg(needed);
    }
    return problems;
}

// The width (and height) a cell's text needs: its widest line with the item margins, its icon and check box;
// wrapped to the column when the table wraps.
inline QSize cellTextSize(const QTableView& table, const QModelIndex& index) {
    const QString text = index.data(Qt::DisplayRole).toString();
    const QVariant font = index.data(Qt::FontRole);
    const QFontMetrics metrics(font.isValid() ? font.value<QFont>() : table.font());
    const QStyle* style = table.style();
    int extra = 2 * (style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, &table) + 1);
    if (index.data(Qt::CheckStateRole).isValid())
        extra += style->pixelMetric(QStyle::PM_IndicatorWidth, nullptr, &table) + 4;
    if (index.data(Qt::DecorationRole).isValid())
        extra += table.iconSize().isValid()
                     ? table.iconSize().width() + 4
                     : style->pixelMetric(QStyle::PM_SmallIconSize, nullptr, &table) + 4;
    if (table.wordWrap()) {
        const int width = std::max(1, table.columnWidth(index.column()) - extra);
        const QRect wrapped = metrics.boundingRect(QRect(0, 0, width, 1 << 20), Qt::TextWordWrap, text);
        return {wrapped.width() + extra, wrapped.height()};
    }
    int widest = 0;
    const QStringList lines = text.split('\n');
    for (const QString& line : lines)
        widest = std::max(widest, metrics.horizontalAdvance(line));
    return {widest + extra, static_cast<int>(lines.size()) * metrics.height()};
}

// Every cell in view whose text its column (and row) does not hold: elided ("...") or cut off. A column the
// table cannot scroll to see in full (no horizontal scrolling) counts as wide as the part in its viewport.
inline QStringList cellProblems(const QTableView& table, const QString& name) {
    QStringList problems;
    const QAbstractItemModel* model = table.model();
    if (!model || !shown(&table))
        return problems;
    const QRect viewport = table.viewport()->rect();
    const bool scrollsSideways = table.horizontalScrollBar()->maximum() > 0;
    const int firstRow = std::max(0, table.rowAt(0));
    const int lastRow =
        table.rowAt(viewport.height() - 1) < 0 ? model->rowCount() - 1 : table.rowAt(viewport.height() - 1);
    for (int row = firstRow; row <= lastRow && row < model->rowCount(); ++row) {
        if (table.isRowHidden(row))
            continue;
        for (int column = 0; column < model->columnCount(); ++column) {
            const QModelIndex index = model->index(row, column);
            QRect cell = table.visualRect(index);
            if (table.isColumnHidden(column) || !cell.intersects(viewport) ||
                index.data(Qt::DisplayRole).toString().isEmpty())
                continue;
            if (!scrollsSideways)
                cell = cell.intersected(QRect(viewport.left(), cell.top(), viewport.width(), cell.height()));
            const QSize needed = cellTextSize(table, index);
            // 1 px of slack: text widths are rounded up to whole pixels.
            if (needed.width() > cell.width() + 1 || needed.height() > cell.height() + 1)
                problems << QString("%1 cell (%2, %3) \"%4\" needs %5x%6 px, shows %7x%8 px")
                                .arg(name)
                                .arg(row)
                                .arg(column)
                                .arg(index.data(Qt::DisplayRole).toString().left(40))
                                .arg(needed.width())
                                .arg(needed.height())
                                .arg(cell.width())
                                .arg(cell.height());
        }
    }
    return problems;
}

} // namespace ts::test
