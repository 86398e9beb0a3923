#include "running/SessionLoader.h"

#include "datasets/DatasetReader.h"
#include "store/StoredTrialConverter.h"
#include "strategies/StrategyRegistry.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ts::gui {

namespace {

std::vector<std::string> parameterNames(const SessionRecord& record) {
    std::vector<std::string> names;
    auto j = parseBoundedJson(record.parameters, fmt::format("the parameters of session {}", record.id));
    if (j.is_array())
        for (const auto& name : j)
            if (name.is_string())
                names.push_back(name.get<std::string>());
    return names;
}

// Value lists from the values seen, numbers in numeric order then the rest by text.
std::vector<Parameter> observedParameters(const std::vector<std::string>& names,
                                          const std::vector<Trial>& trials) {
    std::vector<Parameter> parameters;
    for (std::size_t p = 0; p < names.size(); ++p) {
        Parameter parameter{names[p], ParameterType::Integer, {}};
        std::map<std::string, Value> seen;
        for (const Trial& t : trials)
            if (p < t.config.size())
                seen.emplace(toString(t.config[p]), t.config[p]);
        for (auto& [text, value] : seen)
            parameter.values.push_back(value);
        std::stable_sort(parameter.values.begin(), parameter.values.end(),
                         [](const Value& a, const Value& b) {
                             if (isNumeric(a) && isNumeric(b))
                                 return toNumber(a) < toNumber(b);
                             return isNumeric(a) && !isNumeric(b);
                         });
        parameters.push_back(std::move(parameter));
    }
    return parameters;
}

// The session's strategy, set up as it was and told of the stored trials, says what it learned. Sessions of
// strategies this build does not have (a peer's, say) learned nothing it can tell.
QStringList restrictionsOf(const SessionRecord& record, const SearchSpace& space,
                           std::span<const Trial> trials) {
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    QStringList rules;
    try {
        auto strategy = registry.create(record.strategy);
        strategy->reset({&space, spaceModeFromString(record.spaceMode).value_or(SpaceMode::Constrained),
                         record.seed, registry.options(record.strategy, strategyOptionsOf(record))});
        strategy->observe(trials);
        for (const std::string& rule : strategy->learnedRestrictions())
            rules << QString::fromStdString(rule);
    } catch (const std::exception&) {
        return {}; // an unknown strategy or option: nothing to tell, and the session still opens
    }
    return rules;
}

} // namespace

std::map<std::string, std::string> strategyOptionsOf(const SessionRecord& record) {
    std::map<std::string, std::string> options;
    auto j = parseBoundedJson(record.options, fmt::format("the options of session {}", record.id));
    if (j.is_object())
        for (auto& [key, value] : j.items())
            options[key] = value.is_string() ? value.get<std::string>() : value.dump();
    return options;
}

Trial toTrial(const StoredTrial& stored, const SearchSpace* space, const std::vector<std::string>& names) {
    if (space)
        if (std::optional<Trial> trial = StoredTrialConverter::inSpace(stored, *space))
            return std::move(*trial);
    return StoredTrialConverter::byNames(stored, names);
}

LoadedSession loadSession(const QString& databasePath, std::int64_t sessionId) {
    RecordStore store(databasePath.toStdString(), DatabaseAccess::ReadOnly);
    std::optional<SessionRecord> record = store.session(sessionId);
    if (!record)
        throw Error(fmt::format("Session {} is not in the records database {}.", sessionId,
                                databasePath.toStdString()));
    LoadedSession loaded;
    loaded.record = *record;
    if (!record->dataset.empty()) {
        try {
            loaded.dataset = std::make_shared<const Dataset>(readDataset(record->dataset));
        } catch (const std::exception& e) {
            loaded.datasetProblem = QString::fromStdString(e.what());
        }
    }
    std::vector<std::string> names = parameterNames(*record);
    const SearchSpace* space = nullptr;
    if (loaded.dataset) {
        std::vector<std::string> datasetNames;
        for (const Parameter& p : loaded.dataset->space.parameters())
            datasetNames.push_back(p.name);
        if (datasetNames == names)
            space = &loaded.dataset->space;
        else
            loaded.dataset.reset(); // the file changed since: its indices would not match
    }
    for (const StoredTrial& stored : store.trials(sessionId))
        loaded.trials.push_back(toTrial(stored, space, names));
    loaded.parameters = space ? space->parameters() : observedParameters(names, loaded.trials);
    if (space)
        loaded.restrictions = restrictionsOf(*record, *space, loaded.trials);
    return loaded;
}

} // namespace ts::gui
