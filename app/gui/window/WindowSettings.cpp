#include "window/WindowSettings.h"

#include "window/TaskPanel.h"

#include <QMainWindow>
#include <QSettings>

namespace ts::gui {

void WindowSettings::save(const QMainWindow& window, const QRect& screenArea, const QString& database,
                          const TaskPanel& task) {
    QSettings settings;
    if (screenArea.contains(window.frameGeometry())) {
        settings.setValue("window/geometry", window.saveGeometry());
        settings.setValue("window/state", window.saveState());
    } else {
        settings.remove("window/geometry");
        settings.remove("window/state");
    }
    settings.setValue("records/database", database);
    task.saveSettings(settings);
}

bool WindowSettings::restoreLayout(QMainWindow& window) {
    QSettings settings;
    return window.restoreGeometry(settings.value("window/geometry").toByteArray()) &&
           window.restoreState(settings.value("window/state").toByteArray());
}

QString WindowSettings::database() {
    return QSettings().value("records/database").toString();
}

void WindowSettings::restoreTask(TaskPanel& task) {
    QSettings settings;
    task.restoreSettings(settings);
}

} // namespace ts::gui
