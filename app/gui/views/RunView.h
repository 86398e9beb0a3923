#pragma once

#include <QElapsedTimer>
#include <QWidget>

class QTimer;

namespace ts::gui {

class RunData;

// Base of the views that show the current run. Data changes only mark a view dirty; the main window's
// refresh timer (up to 10 Hz) redraws dirty views that are visible, and a hidden view catches up when shown,
// so a session running flat out never redraws per trial. A redraw held back by the minimum interval is not
// lost: the view catches up by itself once the interval has passed, even when no timer tick follows (the
// last trials of a session arrive just before the main window stops its timer).
class RunView : public QWidget {
    Q_OBJECT
public:
    explicit RunView(RunData& data, QWidget* parent = nullptr);

    void markDirty() { m_dirty = true; }
    bool isDirty() const { return m_dirty; }
    // Redraws when dirty and visible (or when forced, e.g. before a screenshot or in a benchmark).
    void refreshIfNeeded(bool force = false);
    // Heavy views redraw less often than the 10 Hz timer while data streams in (0: every tick).
    void setMinimumInterval(int ms) { m_minimumIntervalMs = ms; }

protected:
    virtual void refresh() = 0;
    void showEvent(QShowEvent* event) override;
    RunData& data() const { return m_data; }

private:
    RunData& m_data;
    bool m_dirty = true;
    int m_minimumIntervalMs = 0;
    QElapsedTimer m_lastRefresh;
    QTimer* m_catchUp; // single shot: the refresh the minimum interval held back
};

} // namespace ts::gui
