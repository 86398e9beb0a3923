#pragma once

#include <QList>
#include <QObject>
#include <QRect>

class QDockWidget;
class QMainWindow;

namespace ts::gui {

// Where the window's docks go, and the window on its screen. reset(): the default layout (the task dock at
// the left, the views tabbed beside the trial details, the window 90 % of the screen, centred). tile():
// every view side by side in a grid that fits the window. fitToScreen(): the window moved and shrunk onto
// its screen's available area when it does not fit there, again whenever it moves to another screen or the
// screen changes size (once watchScreen() was called with the window shown). A screenshot of a given size is
// not kept on the screen (setKeptOnScreen(false)).
class WindowLayout : public QObject {
    Q_OBJECT
public:
    // `views`: the views' docks, in MainWindow::viewNames() order.
    WindowLayout(QMainWindow& window, QDockWidget* task, QDockWidget* details, QList<QDockWidget*> views);

    void reset();
    void tile();
    void fitToScreen();
    QRect availableArea() const;
    void watchScreen();

    void setKeptOnScreen(bool kept) { m_keptOnScreen = kept; }

    // A column of the side-by-side grid is at least this wide, so tick labels stay readable.
    static constexpr int kGridColumnWidth = 440;
    // Two rows of the grid need this much height each (a view of two charts scrolls in less).
    static constexpr int kGridRowHeight = 330;

private:
    QMainWindow& m_window;
    QDockWidget* m_task;
    QDockWidget* m_details;
    QList<QDockWidget*> m_views;
    bool m_keptOnScreen = true;
    bool m_screenWatched = false;
};

} // namespace ts::gui
