#pragma once

#include "store/RecordStore.h"
#include "trial/Trial.h"

#include <cstdint>
#include <filesystem>
#include <vector>

namespace ts {

// What `tune --resume` (and the GUI's records view) needs to continue an interrupted session: its record,
// checked for being resumable, and its finished trials rebuilt in the session's space for
// TuningSession::preload, so that they count against the budget and are never measured again.
class SessionResume {
public:
    // Throws Error when the session is not in the store or has already used its budget.
    static SessionRecord resumable(const RecordStore& store, std::int64_t session);

    // The finished trials, in evaluation order, with their configs located in `space`. Throws Error naming
    // the session and the trial when a stored config is not in the space (the dataset or kernel changed).
    static std::vector<Trial> finishedTrials(const RecordStore& store, const SessionRecord& session,
                                             const SearchSpace& space);

    // Throws Error naming the session and the file when `file` (its dataset or kernel source) no longer has
    // the hash the session recorded; a session without a hash, or no file, passes.
    static void checkSourceUnchanged(const SessionRecord& session, const std::filesystem::path& file);
    // Throws Error naming both devices when a kernel session measured on one device (its fingerprint) would
    // be continued on another: their times would not compare.
    static void checkSameDevice(const SessionRecord& session, const std::string& device);

    // A stored trial as the session had it (config located in `space`); nullopt when it is not there.
    // StoredTrialConverter::inSpace, under the name the callers know.
    static std::optional<Trial> toTrial(const StoredTrial& stored, const SearchSpace& space);
};

} // namespace ts
