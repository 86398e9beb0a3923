#include "running/SessionBridge.h"

namespace ts::gui {

void SessionBridge::trialFinished(const Trial& trial) {
    std::lock_guard lock(m_mutex);
    m_pending.push_back(trial);
}

void SessionBridge::progress(const SessionProgress& progress) {
    std::lock_guard lock(m_mutex);
    m_progress = progress;
}

void SessionBridge::finished(SessionStatus status, StopReason reason) {
    emit sessionFinished(static_cast<int>(status), static_cast<int>(reason));
}

std::vector<Trial> SessionBridge::takeTrials() {
    std::lock_guard lock(m_mutex);
    std::vector<Trial> taken;
    taken.swap(m_pending);
    return taken;
}

std::optional<SessionProgress> SessionBridge::lastProgress() const {
    std::lock_guard lock(m_mutex);
    return m_progress;
}

} // namespace ts::gui
