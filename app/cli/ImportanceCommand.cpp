#include "Commands.h"

#include "analysis/ParameterImportance.h"
#include "store/RecordStore.h"
#include "store/StoredTrialConverter.h"
#include "space/ValueJson.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ts::cli {

namespace {

struct ImportanceOptions {
    std::string db;
    std::int64_t session = 0;
    bool json = false;
};

// The session's parameter names as recorded; Error when the column is not a JSON array of names.
std::vector<std::string> parameterNames(const SessionRecord& record, const std::string& db) {
    const std::string source = fmt::format("the parameters of session {} in {}", record.id, db);
    const nlohmann::json j = parseBoundedJson(record.parameters, source);
    bool names = j.is_array() && !j.empty();
    for (const auto& name : names ? j : nlohmann::json::array())
        names = names && name.is_string();
    if (!names)
        throw Error(fmt::format("The parameters of session {} in {} are not a JSON array of names, so its "
                                "configs cannot be read.",
                                record.id, db));
    return j.get<std::vector<std::string>>();
}

void printTable(const SessionRecord& record, const ImportanceResult& result) {
    fmt::print("session {}: {} on {}, strategy {}; {} successful trials used, {} left out\n", record.id,
               record.kernel, record.device, record.strategy, result.trials, result.excluded);
    fmt::print("method: {}\n", ParameterImportance::kMethod);
    fmt::print("{:>4}  {:<24} {:>10} {:>8}  {:>6}  {}\n", "rank", "parameter", "importance", "spread",
               "values", "best value");
    for (std::size_t i = 0; i < result.ranked.size(); ++i) {
        const ParameterEffect& e = result.ranked[i];
        fmt::print("{:>4}  {:<24} {:>10.4f} {:>7.2f}x  {:>6}  {}\n", i + 1, e.parameter, e.importance,
                   e.spread, e.values, toString(e.bestValue));
    }
}

void printJson(const SessionRecord& record, const ImportanceResult& result) {
    nlohmann::ordered_json parameters = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < result.ranked.size(); ++i) {
        const ParameterEffect& e = result.ranked[i];
        parameters.push_back({{"rank", i + 1},
                              {"name", e.parameter},
                              {"importance", e.importance},
                              {"variance", e.variance},
                              {"spread", e.spread},
                              {"values", e.values},
                              {"best_value", valueToJson<nlohmann::ordered_json>(e.bestValue)}});
    }
    nlohmann::ordered_json out{
        {"session", record.id},    {"kernel", record.kernel},     {"method", ParameterImportance::kMethod},
        {"trials", result.trials}, {"excluded", result.excluded}, {"parameters", parameters}};
    fmt::print("{}\n", out.dump(2));
}

void runImportance(const ImportanceOptions& o) {
    const std::filesystem::path path =
        o.db.empty() ? RecordStore::defaultPath() : std::filesystem::path(o.db);
    if (!std::filesystem::exists(path))
        throw Error(fmt::format("The records database {} does not exist.", path.string()));
    RecordStore store(path, DatabaseAccess::ReadOnly);
    const std::optional<SessionRecord> record = store.session(o.session);
    if (!record)
        throw Error(fmt::format("Session {} is not in {}.", o.session, path.string()));
    const std::vector<std::string> names = parameterNames(*record, path.string());
    std::vector<Parameter> parameters;
    for (const std::string& name : names)
        parameters.push_back({name, ParameterType::Integer, {}});
    std::vector<Trial> trials;
    for (const StoredTrial& stored : store.trials(o.session))
        trials.push_back(StoredTrialConverter::byNames(stored, names));
    const std::size_t usable = ParameterImportance::usableCount(trials, names.size());
    if (usable < ParameterImportance::kMinTrials)
        throw Error(
            fmt::format("Session {} in {} has {} successful {} with a positive time (of {}); parameter "
                        "importance needs at least {}.",
                        o.session, path.string(), usable, usable == 1 ? "trial" : "trials", trials.size(),
                        ParameterImportance::kMinTrials));
    const ImportanceResult result = ParameterImportance::compute(parameters, trials);
    if (o.json)
        printJson(*record, result);
    else
        printTable(*record, result);
}

} // namespace

void addImportanceCommand(CLI::App& app) {
    auto o = std::make_shared<ImportanceOptions>();
    CLI::App* cmd = app.add_subcommand(
        "importance",
        fmt::format("Rank a recorded session's parameters by importance ({})", ParameterImportance::kMethod));
    cmd->add_option("session", o->session, "Session id, as `records list` prints it")->required();
    cmd->add_option("--db", o->db, "Records database (default: $XDG_DATA_HOME/tunescope/records.db)");
    cmd->add_flag("--json", o->json, "Machine-readable table on stdout");
    cmd->callback([o] { runImportance(*o); });
}

} // namespace ts::cli
