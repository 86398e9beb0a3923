#include "window/WindowLayout.h"

#include <QDockWidget>
#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QTimer>
#include <QWindow>
#include <algorithm>

namespace ts::gui {

WindowLayout::WindowLayout(QMainWindow& window, QDockWidget* task, QDockWidget* details,
                           QList<QDockWidget*> views)
    : QObject(&window), m_window(window), m_task(task), m_details(details), m_views(std::move(views)) {}

void WindowLayout::tile() {
    for (QDockWidget* dock : m_views) {
        dock->setFloating(false);
        dock->show();
    }
    fitToScreen();
    const int width = m_window.width();
    const int taskWidth = m_task->isVisible() && !m_task->isFloating() ? m_task->width() : 0;
    const int columns = std::clamp((width - taskWidth) / kGridColumnWidth, 1, 4);
    const int rows = m_window.height() >= 2 * kGridRowHeight ? 2 : 1;
    const int cells = std::min(static_cast<int>(m_views.size()), columns * rows);
    m_window.addDockWidget(Qt::RightDockWidgetArea, m_views[0]);
    for (int c = 1; c < std::min(columns, cells); ++c)
        m_window.splitDockWidget(m_views[c - 1], m_views[c], Qt::Horizontal);
    for (int i = columns; i < cells; ++i)
        m_window.splitDockWidget(m_views[i - columns], m_views[i], Qt::Vertical);
    // The views that do not fit, and the trial details, behind the last one.
    for (int i = cells; i < static_cast<int>(m_views.size()); ++i)
        m_window.tabifyDockWidget(m_views[cells - 1], m_views[i]);
    m_window.tabifyDockWidget(m_views[cells - 1], m_details);
    m_views[cells - 1]->raise();
    QList<QDockWidget*> firstRow = m_views.mid(0, std::min(columns, cells));
    m_window.resizeDocks(firstRow,
                         QList<int>(firstRow.size(), (width - taskWidth) / static_cast<int>(firstRow.size())),
                         Qt::Horizontal);
    fitToScreen();
}

void WindowLayout::reset() {
    for (QDockWidget* dock : m_window.findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
        dock->setFloating(false);
        dock->show();
    }
    m_window.addDockWidget(Qt::LeftDockWidgetArea, m_task);
    QDockWidget* first = m_views.front();
    m_window.addDockWidget(Qt::RightDockWidgetArea, first);
    m_window.splitDockWidget(first, m_details, Qt::Horizontal);
    for (QDockWidget* dock : m_views)
        if (dock != first)
            m_window.tabifyDockWidget(first, dock);
    first->raise();
    // 90 % of the screen, centred (a screenshot keeps its size); the views get half the width, the task and
    // the trial details a quarter.
    if (m_keptOnScreen) {
        const QRect area = availableArea();
        const QSize size(area.width() * 9 / 10, area.height() * 9 / 10);
        m_window.resize(size.expandedTo(m_window.minimumSizeHint()).boundedTo(area.size()));
        m_window.move(area.x() + (area.width() - m_window.frameGeometry().width()) / 2,
                      area.y() + (area.height() - m_window.frameGeometry().height()) / 2);
    }
    const int w = m_window.width();
    m_window.resizeDocks({m_task, first, m_details}, {std::max(m_task->minimumWidth(), w / 4), w / 2, w / 4},
                         Qt::Horizontal);
    fitToScreen();
}

QRect WindowLayout::availableArea() const {
    const QScreen* on = m_window.screen() ? m_window.screen() : QGuiApplication::primaryScreen();
    return on->availableGeometry();
}

void WindowLayout::fitToScreen() {
    if (!m_keptOnScreen)
        return;
    const QRect area = availableArea();
    const QRect frame = m_window.frameGeometry();
    if (area.contains(frame))
        return;
    const QSize margins = frame.size() - m_window.size();
    m_window.resize(m_window.size().boundedTo(area.size() - margins));
    const QRect fitted = m_window.frameGeometry();
    m_window.move(
        std::clamp(fitted.x(), area.left(), std::max(area.left(), area.right() + 1 - fitted.width())),
        std::clamp(fitted.y(), area.top(), std::max(area.top(), area.bottom() + 1 - fitted.height())));
}

void WindowLayout::watchScreen() {
    QWindow* handle = m_window.windowHandle();
    if (m_screenWatched || !handle)
        return;
    m_screenWatched = true;
    // Moved to another screen (or this one changed size): fit it again.
    connect(handle, &QWindow::screenChanged, this, [this](QScreen* to) {
        if (to)
            connect(to, &QScreen::availableGeometryChanged, this, &WindowLayout::fitToScreen,
                    Qt::UniqueConnection);
        QTimer::singleShot(0, this, &WindowLayout::fitToScreen);
    });
    if (QScreen* on = handle->screen())
        connect(on, &QScreen::availableGeometryChanged, this, &WindowLayout::fitToScreen,
                Qt::UniqueConnection);
}

} // namespace ts::gui
