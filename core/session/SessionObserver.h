#pragma once

#include "session/SessionProgress.h"
#include "session/SessionStatus.h"
#include "trial/Trial.h"

namespace ts {

// Callbacks from a running session. They are called on the session's thread, in order; an observer that
// feeds a GUI must hand the data over to its own thread (queued signals) and return quickly.
class SessionObserver {
public:
    virtual ~SessionObserver() = default;
    virtual void trialFinished(const Trial& trial) { (void)trial; }
    virtual void bestImproved(const Trial& trial) { (void)trial; }
    virtual void progress(const SessionProgress& progress) { (void)progress; }
    virtual void finished(SessionStatus status, StopReason reason) { (void)status, (void)reason; }
};

} // namespace ts
