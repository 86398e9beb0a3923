#pragma once

#include "store/RecordStore.h"
#include "session/SessionObserver.h"

#include <string>
#include <vector>

namespace ts {

// Commits every finished trial to the records database the moment it completes, and closes the session
// record with the final status. Runs on the session's thread.
class RecordWriter : public SessionObserver {
public:
    RecordWriter(RecordStore& store, std::int64_t sessionId, std::vector<std::string> parameterNames)
        : m_store(store), m_sessionId(sessionId), m_parameterNames(std::move(parameterNames)) {}

    void trialFinished(const Trial& trial) override { m_store.commit(m_sessionId, trial, m_parameterNames); }
    void finished(SessionStatus status, StopReason reason) override {
        (void)reason;
        m_store.endSession(m_sessionId, toString(status));
    }

private:
    RecordStore& m_store;
    std::int64_t m_sessionId;
    std::vector<std::string> m_parameterNames;
};

} // namespace ts
