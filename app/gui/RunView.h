#pragma once

#include <QElapsedTimer>
#include <QWidget>

namespace ts::gui {

class RunData;

// Base of the views that show the current run. Data changes only mark a view dirty; the main window's
// refresh timer (up to 10 Hz) redraws dirty views that are visible, and a hidden view catches up when shown,
// so a session running flat out never redraws per trial.
class RunView : public QWidget {
    Q_OBJECT
public:
    explicit RunView(RunData& data, QWidget* parent = nullptr) : QWidget(parent), m_data(data) {}

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
};

} // namespace ts::gui
