#pragma once

#include "records/RecordStore.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ts {

// Writes the trials of the records database in interchange formats:
// - Kernel Tuner cache JSON and T4 results (one session each: they describe one kernel on one device),
// - JSON lines (a "session" line, then one "trial" line per trial; every stored field, lossless),
// - CSV (one row per trial, a column per parameter plus the config as JSON).
// TrialImporter reads all of them back.
class TrialExporter {
public:
    explicit TrialExporter(const RecordStore& store) : m_store(store) {}

    // Throws Error when the session is absent, or (no session given) the database holds more than one.
    std::string kernelTunerCache(std::optional<std::int64_t> session) const;
    std::string t4(std::optional<std::int64_t> session) const;
    // All sessions, or only `session`.
    std::string jsonLines(std::optional<std::int64_t> session) const;
    std::string csv(std::optional<std::int64_t> session) const;

private:
    SessionRecord single(std::optional<std::int64_t> session, const char* format) const;
    std::vector<SessionRecord> chosen(std::optional<std::int64_t> session) const;

    const RecordStore& m_store;
};

} // namespace ts
