#include "window/SessionActions.h"

#include "running/SessionRunner.h"

#include <QAction>
#include <QMainWindow>
#include <QToolBar>
#include <QToolButton>

namespace ts::gui {

SessionActions::SessionActions(QMainWindow& window, SessionRunner& runner, std::function<void()> start)
    : QObject(&window), m_runner(runner) {
    m_start = new QAction(tr("&Start"), &window);
    m_start->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_start->setToolTip(tr("Start a session of the task (Ctrl+R)"));
    connect(m_start, &QAction::triggered, this, [start = std::move(start)] { start(); });
    m_pause = new QAction(tr("&Pause"), &window);
    m_pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_pause->setToolTip(tr("Pause between batches (Ctrl+P)"));
    connect(m_pause, &QAction::triggered, &runner, &SessionRunner::pause);
    m_resume = new QAction(tr("Res&ume"), &window);
    m_resume->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_resume->setToolTip(tr("Resume the paused session (Ctrl+Shift+P)"));
    connect(m_resume, &QAction::triggered, &runner, &SessionRunner::resume);
    m_stop = new QAction(tr("S&top"), &window);
    m_stop->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Period), QKeySequence(Qt::Key_Escape)});
    m_stop->setToolTip(tr("Stop the session between batches (Ctrl+.)"));
    connect(m_stop, &QAction::triggered, &runner, &SessionRunner::cancel);
    m_bar = window.addToolBar(tr("Session"));
    m_bar->setObjectName("toolbar_session");
    m_bar->setMovable(false);
    m_bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_bar->addActions(actions());
}

QList<QAction*> SessionActions::actions() const {
    return {m_start, m_pause, m_resume, m_stop};
}

QToolButton* SessionActions::button(QAction* action) const {
    return qobject_cast<QToolButton*>(m_bar->widgetForAction(action));
}

void SessionActions::update() {
    const bool running = m_runner.isRunning();
    m_start->setEnabled(!running);
    m_pause->setEnabled(running && !m_runner.isPaused());
    m_resume->setEnabled(running && m_runner.isPaused());
    m_stop->setEnabled(running);
}

} // namespace ts::gui
