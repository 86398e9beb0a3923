#pragma once

#include "session/SessionObserver.h"

#include <QObject>
#include <mutex>
#include <optional>
#include <vector>

namespace ts::gui {

// Hands a running session's events from its worker thread to the UI thread. Trials are buffered under a
// mutex and taken in batches by the UI's refresh timer (so a session running flat out costs the event loop
// one drain per tick, not one event per trial); `finished` is a queued signal.
class SessionBridge : public QObject, public SessionObserver {
    Q_OBJECT
public:
    explicit SessionBridge(QObject* parent = nullptr) : QObject(parent) {}

    // Session thread.
    void trialFinished(const Trial& trial) override;
    void progress(const SessionProgress& progress) override;
    void finished(SessionStatus status, StopReason reason) override;

    // Any thread (the UI takes).
    std::vector<Trial> takeTrials();
    std::optional<SessionProgress> lastProgress() const;

signals:
    // Emitted from the session thread; connect with the default (queued across threads) connection.
    void sessionFinished(int status, int reason);

private:
    mutable std::mutex m_mutex;
    std::vector<Trial> m_pending;
    std::optional<SessionProgress> m_progress;
};

} // namespace ts::gui
