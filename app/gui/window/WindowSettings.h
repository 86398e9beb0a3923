#pragma once

#include <QRect>
#include <QString>

class QMainWindow;

namespace ts::gui {

class TaskPanel;

// What the window keeps between runs (QSettings, ~/.config/Tunescope/tunescope.conf): its geometry and dock
// layout, the records database path and the task panel's settings.
class WindowSettings {
public:
    // A window larger than its screen's available area (it cannot be made so, but a window manager may)
    // keeps no layout: the next launch starts from the default one instead.
    static void save(const QMainWindow& window, const QRect& screenArea, const QString& database,
                     const TaskPanel& task);
    // Restores the saved geometry and layout; false when there is none this version can read.
    static bool restoreLayout(QMainWindow& window);
    // The saved records database path; empty when none was saved.
    static QString database();
    static void restoreTask(TaskPanel& task);
};

} // namespace ts::gui
