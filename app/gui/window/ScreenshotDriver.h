#pragma once

#include <QObject>
#include <QString>

namespace ts::gui {

class MainWindow;

// Drives the window for `--demo` and `--screenshot`: opens a dataset (or chooses a catalog kernel, measured
// for real on a backend at a size), starts a session with the task panel's settings, and (for a screenshot)
// saves a PNG of the main window once N evaluations are shown or the session has ended, with a chosen view in
// front, then reports done. Errors are printed, never shown in a dialog.
class ScreenshotDriver : public QObject {
    Q_OBJECT
public:
    struct Options {
        QString dataset;
        QString screenshot; // empty: demo only (keep running)
        int after = 0;      // evaluations before the shot; 0: when the session ends
        QString view;       // a MainWindow::viewNames() entry, "all" (side by side) or empty (as it is)
        QString kernel;     // a catalog kernel measured for real instead of the dataset
        QString backend;    // its backend: cpu or cuda
        QString kernelSize; // its problem size text; empty: the spec's default
    };

    ScreenshotDriver(MainWindow& window, Options options, QObject* parent = nullptr);

    // Starts loading the dataset (or the kernel's session); done() follows (screenshot mode) or the session
    // just runs (demo).
    void start();

signals:
    void done(int exitCode);

private:
    void onRefreshed(int evaluations);
    void shoot();
    void fail(const QString& message);

    MainWindow& m_window;
    Options m_options;
    bool m_shot = false;
};

} // namespace ts::gui
