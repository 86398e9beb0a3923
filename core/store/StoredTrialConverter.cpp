#include "store/StoredTrialConverter.h"

#include "space/ValueLookup.h"
#include "space/ValueJson.h"
#include "util/BoundedJson.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ts {

namespace {

nlohmann::ordered_json storedConfig(const StoredTrial& stored) {
    return parseBoundedOrderedJson(
        stored.config, fmt::format("the config of trial {} of session {}", stored.number, stored.session));
}

// Everything but the config and its index.
Trial withMeasurement(const StoredTrial& stored) {
    Trial trial;
    trial.number = stored.number;
    Measurement& measurement = trial.measurement;
    measurement.status = measureStatusFromString(stored.status).value_or(MeasureStatus::Invalid);
    measurement.objective = stored.objective;
    measurement.samples = stored.samples;
    measurement.compileMs = stored.compileMs;
    measurement.log = stored.log;
    measurement.metrics = stored.metrics;
    trial.predicted = stored.predicted;
    trial.batch = stored.batch;
    trial.elapsedS = stored.elapsedS;
    trial.finishedAt = stored.finishedAt;
    return trial;
}

} // namespace

std::optional<Trial> StoredTrialConverter::inSpace(const StoredTrial& stored, const SearchSpace& space) {
    const nlohmann::ordered_json config = storedConfig(stored);
    if (!config.is_object() || config.size() != space.dimension())
        return std::nullopt;
    Trial trial = withMeasurement(stored);
    std::vector<std::uint32_t> digits;
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
    trial.index = space.indexOfDigits(digits);
    return trial;
}

Trial StoredTrialConverter::byNames(const StoredTrial& stored, const std::vector<std::string>& names) {
    const nlohmann::ordered_json config = storedConfig(stored);
    Trial trial = withMeasurement(stored);
    trial.index = stored.index;
    for (const std::string& name : names) {
        const auto value = config.is_object() ? config.find(name) : config.end();
        trial.config.push_back(value != config.end() ? valueOrJsonText(*value) : Value(std::string()));
    }
    return trial;
}

} // namespace ts
