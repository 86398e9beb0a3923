#pragma once

#include "store/RecordStore.h"

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
    // Every session of the database as one Kernel Tuner cache: a dataset of one kernel at one problem size
    // on one device, measured over several sessions (a uniform sample and tuning runs). A config measured
    // twice keeps its first session's trial. Throws Error, one sentence naming the session, when a session
    // differs from the first in kernel, problem size, device or parameters, or when there is none.
    std::string mergedKernelTunerCache() const;
    std::string t4(std::optional<std::int64_t> session) const;
    // All sessions, or only `session`.
    std::string jsonLines(std::optional<std::int64_t> session) const;
    std::string csv(std::optional<std::int64_t> session) const;

private:
    std::string kernelTunerCache(const std::vector<SessionRecord>& sessions) const;
    SessionRecord single(std::optional<std::int64_t> session, const char* format) const;
    std::vector<SessionRecord> chosen(std::optional<std::int64_t> session) const;

    const RecordStore& m_store;
};

} // namespace ts
