#pragma once

#include <QObject>
#include <functional>

class QAction;
class QMainWindow;
class QToolBar;
class QToolButton;

namespace ts::gui {

class SessionRunner;

// Start, Pause, Resume and Stop: one action each, shared by the Session menu and the session toolbar, which
// stays visible whatever the docks do. Pause, Resume and Stop forward to the runner; each action is enabled
// only when it applies (update()).
class SessionActions : public QObject {
    Q_OBJECT
public:
    // `start` runs when Start is triggered; the toolbar is added to `window`.
    SessionActions(QMainWindow& window, SessionRunner& runner, std::function<void()> start);

    QList<QAction*> actions() const;
    QToolBar* toolBar() const { return m_bar; }
    QToolButton* startButton() const { return button(m_start); }
    QToolButton* pauseButton() const { return button(m_pause); }
    QToolButton* resumeButton() const { return button(m_resume); }
    QToolButton* stopButton() const { return button(m_stop); }

    // Enables what applies to the runner's state now.
    void update();

private:
    QToolButton* button(QAction* action) const;

    SessionRunner& m_runner;
    QAction* m_start;
    QAction* m_pause;
    QAction* m_resume;
    QAction* m_stop;
    QToolBar* m_bar;
};

} // namespace ts::gui
