#include "records/SessionResume.h"

#include "records/SourceHash.h"
#include "records/ValueLookup.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

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
    const nlohmann::ordered_json config = parseBoundedOrderedJson(
        stored.config, fmt::format("the config of trial {} of session {}", stored.number, stored.session));
    if (!config.is_object())
        return std::nullopt;
    std::vector<std::uint32_t> digits;
    Trial trial;
    for (const Parameter& parameter : space.parameters()) {
        const auto value = config.find(parameter.name);
        if (value == config.end())
            return std::nullopt;
        const std::optional<std::uint32_t> position = ValueLookup(parameter).find(*value);
        if (!position)
            return std::nullopt;
        digits.push_back(*position);
        trial.config.push_back(parameter.values[*position]);
    }
    if (config.size() != space.dimension())
        return std::nullopt;
    trial.index = space.indexOfDigits(digits);
    trial.number = stored.number;
    Measurement& measurement = trial.measurement;
    measurement.status = measureStatusFromString(stored.status).value_or(MeasureStatus::Invalid);
    measurement.objective = std::isnan(stored.objective) ? 0.0 : stored.objective;
    measurement.samples = stored.samples;
    measurement.compileMs = std::isnan(stored.compileMs) ? 0.0 : stored.compileMs;
    measurement.log = stored.log;
    measurement.metrics = stored.metrics;
    trial.predicted = stored.predicted;
    trial.batch = stored.batch;
    trial.elapsedS = std::isnan(stored.elapsedS) ? 0.0 : stored.elapsedS;
    trial.finishedAt = std::isnan(stored.finishedAt) ? 0.0 : stored.finishedAt;
    return trial;
}

void SessionResume::checkSourceUnchanged(const SessionRecord& session, const std::filesystem::path& file) {
    if (!session.sourceHash.empty() && !file.empty() && SourceHash::ofFile(file) != session.sourceHash)
        throw Error(fmt::format("Session {} cannot be resumed: {} changed since the session started.",
                                session.id, file.string()));
}

void SessionResume::checkSameDevice(const SessionRecord& session, const std::string& device) {
    if (session.device != device)
        throw Error(fmt::format("Session {} was measured on {}, not on this machine's {}, so its times would "
                                "not compare; start a new session (--transfer learns from it).",
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
