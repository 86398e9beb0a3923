#pragma once

#include "store/RecordStore.h"
#include "trial/Trial.h"

#include <optional>
#include <string>
#include <vector>

namespace ts {

// The one way back from a stored trial to a Trial (resume, warm starts, the window's records view). One
// policy:
// - config: with a space, the stored config (its JSON object) is located in the space by value and the index
//   recomputed from it, never trusted (the stored index belongs to the space the session had); a config that
//   is not in the space (a missing, extra or unknown value) gives nullopt. Without a space, the values are
//   read from the JSON (valueOrJsonText) in the order of `names`, a name the JSON lacks giving an empty
//   string, and the stored index is kept.
// - numbers as stored: NaN and infinities stay what they are (RecordStore keeps a NaN REAL as NULL and reads
//   it back as NaN), so Trial -> RecordStore::commit -> trials() -> Trial gives the same trial, except what
//   the store does not keep: strategyMs (0), a NaN prediction (none), NaN metrics (absent) and infinite
//   samples (NaN: JSON has no infinity).
// - an unknown status name reads as Invalid.
class StoredTrialConverter {
public:
    static std::optional<Trial> inSpace(const StoredTrial& stored, const SearchSpace& space);
    static Trial byNames(const StoredTrial& stored, const std::vector<std::string>& names);
};

} // namespace ts
