#include "ResumeSupport.h"

#include "records/DeviceFingerprint.h"
#include "records/SessionResume.h"
#include "records/SourceHash.h"
#include "util/Error.h"

#include <cstdio>
#include <fmt/format.h>

namespace ts::cli {

void TrialLogPrinter::trialFinished(const Trial& trial) {
    const Measurement& m = trial.measurement;
    std::string outcome = toString(m.status);
    if (m.status == MeasureStatus::Ok)
        outcome += fmt::format(" {:.6g} ms", m.objective);
    std::fprintf(stderr, "trial %lld committed: %s\n", static_cast<long long>(trial.number + 1),
                 outcome.c_str());
    std::fflush(stderr);
}

void bindReplaySession(SessionRecord& record, const std::filesystem::path& dataset) {
    record.sourceHash = SourceHash::ofFile(dataset);
    if (!record.device.empty())
        record.deviceInfo = DeviceFingerprint::ofGpuName(record.device).toJson();
}

SessionRecord sessionToResume(const std::filesystem::path& db, std::int64_t session) {
    if (!std::filesystem::exists(db))
        throw Error(fmt::format("The records database {} does not exist, so session {} cannot be resumed.",
                                db.string(), session));
    RecordStore store(db, DatabaseAccess::ReadOnly);
    return SessionResume::resumable(store, session);
}

std::vector<Trial> reopenForResume(RecordStore& store, const SessionRecord& session, const SearchSpace& space,
                                   const std::filesystem::path& dataset) {
    SessionResume::checkSourceUnchanged(session, dataset);
    std::vector<Trial> trials = SessionResume::finishedTrials(store, session, space);
    store.reopenSession(session.id);
    return trials;
}

} // namespace ts::cli
