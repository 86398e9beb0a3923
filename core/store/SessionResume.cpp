#include "store/SessionResume.h"

#include "util/SourceHash.h"
#include "store/StoredTrialConverter.h"
#include "util/Error.h"

#include <fmt/format.h>

namespace ts {

SessionRecord SessionResume::resumable(const RecordStore& store, std::int64_t session) {
    std::optional<SessionRecord> record = store.session(session);
    if (!record)
        throw Error(
            fmt::format("Session {} is not in the records database {}.", session, store.path().string()));
    const std::int64_t done = store.trialCount(session);
    if (done >= record->budget)
        throw Error(fmt::format("Session {} has already used its budget ({} of {} evaluations); there is "
                                "nothing to resume.",
                                session, done, record->budget));
    return *record;
}

std::optional<Trial> SessionResume::toTrial(const StoredTrial& stored, const SearchSpace& space) {
    return StoredTrialConverter::inSpace(stored, space);
}

void SessionResume::checkSourceUnchanged(const SessionRecord& session, const std::filesystem::path& file) {
    if (!session.sourceHash.empty() && !file.empty() && SourceHash::ofFile(file) != session.sourceHash)
        throw Error(fmt::format("Session {} cannot be resumed: {} changed since the session started.",
                                session.id, file.string()));
}

void SessionResume::checkSameDevice(const SessionRecord& session, const std::string& device) {
    if (session.device != device)
        throw Error(fmt::format(
            "Session {} was measured on {}, not on this machine's {}, so its times would "
            "not compare; start a new session, which may learn from this one as a transfer source.",
            session.id, session.device, device));
}

std::vector<Trial> SessionResume::finishedTrials(const RecordStore& store, const SessionRecord& session,
                                                 const SearchSpace& space) {
    std::vector<Trial> trials;
    for (const StoredTrial& stored : store.trials(session.id)) {
        std::optional<Trial> trial = toTrial(stored, space);
        if (!trial)
            throw Error(
                fmt::format("Session {} cannot be resumed: its trial {} ({}) is not in the search space "
                            "any more (the dataset or kernel changed since).",
                            session.id, stored.number + 1, stored.config));
        trials.push_back(std::move(*trial));
    }
    return trials;
}

} // namespace ts
