#pragma once

#include "records/RecordStore.h"
#include "session/SessionObserver.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace ts::cli {

// `tune --log-trials`: one line per finished trial on stderr, "trial N committed: STATUS TIME", printed
// after the trial is in the records database (add it after the RecordWriter). Scripts and tests that
// interrupt a session read these lines to know what must survive.
class TrialLogPrinter : public SessionObserver {
public:
    void trialFinished(const Trial& trial) override;
};

// Binds a new replay session to what it measured: the dataset file's hash and the device's fingerprint.
void bindReplaySession(SessionRecord& record, const std::filesystem::path& dataset);

// For `tune --resume ID`: the stored session, checked for being resumable, and after the space is built,
// reopened with its finished trials ready for TuningSession::preload. Throws Error on a session that cannot
// be resumed (absent, budget used, dataset changed since).
SessionRecord sessionToResume(const std::filesystem::path& db, std::int64_t session);
std::vector<Trial> reopenForResume(RecordStore& store, const SessionRecord& session, const SearchSpace& space,
                                   const std::filesystem::path& dataset);

} // namespace ts::cli
