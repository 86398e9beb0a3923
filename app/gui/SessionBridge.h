#pragma once

#include "session/ModelQualityTracker.h"
#include "session/SessionObserver.h"

#include <QObject>
#include <mutex>
#include <optional>
#include <vector>

namespace ts::gui {

// Hands a running session's events from its worker thread to the UI thread. Trials are buffered under a
// mutex and taken in batches by the UI's refresh timer (so a session running flat out costs the event loop
// one drain per tick, not one event per trial); `finished` is a queued signal. The quality tracker, when
// given, must be an observer of the same session registered before this bridge.
class SessionBridge : public QObject, public SessionObserver {
    Q_OBJECT
public:
    explicit SessionBridge(const ModelQualityTracker* quality = nullptr, QObject* parent = nullptr)
        : QObject(parent), m_quality(quality) {}

    // Session thread.
    void trialFinished(const Trial& trial) override;
    void progress(const SessionProgress& progress) override;
    void finished(SessionStatus status, StopReason reason) override;

    // Any thread (the UI takes).
    std::vector<Trial> takeTrials();
    std::optional<SessionProgress> lastProgress() const;
    std::vector<ModelQualityTracker::Point> qualityPoints() const;

signals:
    // Emitted from the session thread; connect with the default (queued across threads) connection.
    void sessionFinished(int status, int reason);

private:
    const ModelQualityTracker* m_quality;
    mutable std::mutex m_mutex;
    std::vector<Trial> m_pending;
    std::optional<SessionProgress> m_progress;
    std::vector<ModelQualityTracker::Point> m_points;
};

} // namespace ts::gui
