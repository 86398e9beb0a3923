#include "running/WorkerThread.h"

#include <QObject>
#include <QThread>

namespace ts::gui {

WorkerThread::WorkerThread(QObject& owner, QString name) : m_owner(owner), m_name(std::move(name)) {}

WorkerThread::~WorkerThread() {
    cancel();
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

bool WorkerThread::start(std::function<void()> work, std::function<void()> ended) {
    if (m_running)
        return false;
    {
        std::lock_guard lock(m_mutex);
        m_loop = {};
        m_cancelRequested = false;
        m_pauseRequested = false;
    }
    m_running = true;
    m_paused = false;
    m_thread = QThread::create(std::move(work));
    m_thread->setObjectName(m_name);
    QObject::connect(m_thread, &QThread::finished, &m_owner,
                     [this, ended = std::move(ended)] { onFinished(ended); });
    m_thread->start();
    return true;
}

void WorkerThread::onFinished(const std::function<void()>& ended) {
    m_thread->deleteLater();
    m_thread = nullptr;
    m_running = false;
    m_paused = false;
    ended();
}

void WorkerThread::attachControls(Controls controls) {
    std::lock_guard lock(m_mutex);
    m_loop = std::move(controls);
    if (m_cancelRequested)
        m_loop.cancel();
    if (m_pauseRequested)
        m_loop.pause();
}

void WorkerThread::detach() {
    std::lock_guard lock(m_mutex);
    m_loop = {};
}

bool WorkerThread::pause() {
    if (!m_running || m_paused)
        return false;
    {
        std::lock_guard lock(m_mutex);
        m_pauseRequested = true;
        if (m_loop.pause)
            m_loop.pause();
    }
    m_paused = true;
    return true;
}

bool WorkerThread::resume() {
    if (!m_running || !m_paused)
        return false;
    {
        std::lock_guard lock(m_mutex);
        m_pauseRequested = false;
        if (m_loop.resume)
            m_loop.resume();
    }
    m_paused = false;
    return true;
}

void WorkerThread::cancel() {
    std::lock_guard lock(m_mutex);
    m_cancelRequested = true;
    if (m_loop.cancel)
        m_loop.cancel();
}

void WorkerThread::wait() {
    if (m_thread)
        m_thread->wait();
}

} // namespace ts::gui
