#include "formats/TrialExporter.h"

#include "formats/CsvTable.h"
#include "deploy/DeploymentBuilder.h"
#include "space/ValueJson.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace ts {

namespace {

using Json = nlohmann::ordered_json;

Json parsedOr(const std::string& text, Json fallback) {
    Json value = parseBoundedOrderedJson(text, "a stored JSON column");
    return value.is_discarded() ? fallback : value;
}

Json finite(double value) {
    return std::isfinite(value) ? Json(value) : Json();
}

// Python's str() of a config value, as Kernel Tuner writes cache keys.
std::string pythonText(const Json& value) {
    return toString(valueOrJsonText(value));
}

// Kernel Tuner's failure strings; timeouts and wrong results have none of their own there.
const char* kernelTunerFailure(const std::string& status) {
    if (status == "compile_failed")
        return "CompilationFailedConfig";
    if (status == "invalid")
        return "InvalidConfig";
    return "RuntimeFailedConfig";
}

const char* t4Invalidity(const std::string& status) {
    if (status == "ok")
        return "correct";
    if (status == "compile_failed")
        return "compile";
    if (status == "wrong_result")
        return "correctness";
    if (status == "invalid")
        return "constraints";
    if (status == "timeout")
        return "timeout";
    return "runtime";
}

Json metricsJson(const std::map<std::string, double>& metrics) {
    Json object = Json::object();
    for (const auto& [name, value] : metrics)
        object[name] = value;
    return object;
}

Json sessionLine(const SessionRecord& s) {
    return Json{{"type", "session"},           {"id", s.id},
                {"kernel", s.kernel},          {"problem", s.problem},
                {"device", s.device},          {"backend", s.backend},
                {"dataset", s.dataset},        {"strategy", s.strategy},
                {"options", s.options},        {"seed", s.seed},
                {"space_mode", s.spaceMode},   {"budget", s.budget},
                {"parameters", s.parameters},  {"tool_version", s.toolVersion},
                {"started_at", s.startedAt},   {"ended_at", s.endedAt ? Json(*s.endedAt) : Json()},
                {"status", s.status},          {"source_hash", s.sourceHash},
                {"device_info", s.deviceInfo}, {"settings", s.settings}};
}

Json trialLine(const StoredTrial& t) {
    Json samples = Json::array();
    for (const double sample : t.samples)
        samples.push_back(finite(sample));
    return Json{{"type", "trial"},
                {"session", t.session},
                {"number", t.number},
                {"config_index", t.index},
                {"config", parsedOr(t.config, Json::object())},
                {"status", t.status},
                {"time_ms", finite(t.objective)},
                {"samples", samples},
                {"median_ms", finite(t.median)},
                {"min_ms", finite(t.min)},
                {"mean_ms", finite(t.mean)},
                {"stdev_ms", finite(t.stdev)},
                {"cv", finite(t.cv)},
                {"predicted", t.predicted ? Json(*t.predicted) : Json()},
                {"compile_ms", finite(t.compileMs)},
                {"log", t.log},
                {"batch", t.batch},
                {"elapsed_s", finite(t.elapsedS)},
                {"finished_at", finite(t.finishedAt)},
                {"metrics", metricsJson(t.metrics)}};
}

std::string number(double value) {
    return std::isfinite(value) ? fmt::format("{:.17g}", value) : std::string();
}

} // namespace

SessionRecord TrialExporter::single(std::optional<std::int64_t> session, const char* format) const {
    if (session) {
        std::optional<SessionRecord> record = m_store.session(*session);
        if (!record)
            throw Error(fmt::format("Session {} is not in the records database {}.", *session,
                                    m_store.path().string()));
        return *record;
    }
    std::vector<SessionRecord> all = m_store.sessions();
    if (all.size() != 1)
        throw Error(
            fmt::format("The {} format holds one session and {} holds {}: choose the session to export.",
                        format, m_store.path().string(), all.size()));
    return all.front();
}

std::vector<SessionRecord> TrialExporter::chosen(std::optional<std::int64_t> session) const {
    if (!session)
        return m_store.sessions();
    std::optional<SessionRecord> record = m_store.session(*session);
    if (!record)
        throw Error(
            fmt::format("Session {} is not in the records database {}.", *session, m_store.path().string()));
    return {*record};
}

std::string TrialExporter::kernelTunerCache(std::optional<std::int64_t> session) const {
    return kernelTunerCache(std::vector<SessionRecord>{single(session, "kt-cache")});
}

std::string TrialExporter::mergedKernelTunerCache() const {
    const std::vector<SessionRecord> sessions = m_store.sessions();
    if (sessions.empty())
        throw Error(
            fmt::format("The records database {} holds no session to export.", m_store.path().string()));
    const SessionRecord& first = sessions.front();
    for (const SessionRecord& other : sessions) {
        const char* differs =
            other.kernel != first.kernel                                               ? "kernel"
            : parsedOr(other.problem, Json()) != parsedOr(first.problem, Json())       ? "problem size"
            : other.device != first.device                                             ? "device"
            : parsedOr(other.parameters, Json()) != parsedOr(first.parameters, Json()) ? "parameters"
                                                                                       : nullptr;
        if (differs)
            throw Error(
                fmt::format("Session {} of {} differs from session {} in its {}, so the two cannot make "
                            "one Kernel Tuner cache: export one with --session.",
                            other.id, m_store.path().string(), first.id, differs));
    }
    return kernelTunerCache(sessions);
}

std::string TrialExporter::kernelTunerCache(const std::vector<SessionRecord>& sessions) const {
    const SessionRecord& record = sessions.front();
    const Json names = parsedOr(record.parameters, Json::array());
    std::vector<StoredTrial> trials;
    for (const SessionRecord& session : sessions) {
        std::vector<StoredTrial> more = m_store.trials(session.id);
        trials.insert(trials.end(), std::make_move_iterator(more.begin()),
                      std::make_move_iterator(more.end()));
    }
    Json tuneParams = Json::object();
    std::vector<std::vector<Json>> seen(names.size());
    Json cache = Json::object();
    for (const StoredTrial& trial : trials) {
        const Json config = parsedOr(trial.config, Json::object());
        std::string key;
        Json row = Json::object();
        for (std::size_t p = 0; p < names.size(); ++p) {
            const std::string name = names[p].get<std::string>();
            const Json value = config.value(name, Json());
            if (p > 0)
                key += ',';
            key += pythonText(value);
            row[name] = value;
            if (std::find(seen[p].begin(), seen[p].end(), value) == seen[p].end())
                seen[p].push_back(value);
        }
        if (trial.status == "ok") {
            row["time"] = trial.objective;
            Json times = Json::array();
            for (const double sample : trial.samples)
                times.push_back(finite(sample));
            row["times"] = times;
        } else {
            row["time"] = kernelTunerFailure(trial.status);
        }
        row["compile_time"] = finite(trial.compileMs);
        for (const auto& [metric, value] : trial.metrics)
            row[metric] = value;
        if (!cache.contains(key)) // merged sessions: the first measurement of a config is kept
            cache[key] = row;
    }
    for (std::size_t p = 0; p < names.size(); ++p) {
        std::sort(seen[p].begin(), seen[p].end());
        tuneParams[names[p].get<std::string>()] = seen[p];
    }
    const Json out{{"device_name", record.device},
                   {"kernel_name", record.kernel},
                   {"problem_size", parsedOr(record.problem, Json())},
                   {"tune_params_keys", names},
                   {"tune_params", tuneParams},
                   {"objective", "time"},
                   {"device_fingerprint", parsedOr(record.deviceInfo, Json::object())},
                   {"cache", cache}};
    return out.dump(1) + "\n";
}

std::string TrialExporter::t4(std::optional<std::int64_t> session) const {
    const SessionRecord record = single(session, "t4");
    Json results = Json::array();
    for (const StoredTrial& trial : m_store.trials(record.id)) {
        Json runtimes = Json::array();
        for (const double sample : trial.samples)
            runtimes.push_back(finite(sample));
        Json result{{"timestamp", DeploymentBuilder::isoDate(trial.finishedAt)},
                    {"configuration", parsedOr(trial.config, Json::object())},
                    {"invalidity", t4Invalidity(trial.status)},
                    {"objectives", Json::array({"time"})},
                    {"measurements", Json::array()},
                    {"times", {{"compilation", finite(trial.compileMs)}, {"runtimes", runtimes}}}};
        if (trial.status == "ok")
            result["measurements"].push_back(
                {{"name", "time"}, {"value", trial.objective}, {"unit", "milliseconds"}});
        for (const auto& [metric, value] : trial.metrics)
            result["measurements"].push_back({{"name", metric}, {"value", value}, {"unit", ""}});
        results.push_back(result);
    }
    const Json out{{"schema_version", "1.0.0"},
                   {"metadata",
                    {{"device", record.device},
                     {"kernel_name", record.kernel},
                     {"problem_size", parsedOr(record.problem, Json())},
                     {"timeunit", "milliseconds"},
                     {"tool", fmt::format("Tunescope {}", TUNESCOPE_VERSION)}}},
                   {"results", results}};
    return out.dump(1) + "\n";
}

std::string TrialExporter::jsonLines(std::optional<std::int64_t> session) const {
    std::string out;
    for (const SessionRecord& record : chosen(session)) {
        out += sessionLine(record).dump() + "\n";
        for (const StoredTrial& trial : m_store.trials(record.id))
            out += trialLine(trial).dump() + "\n";
    }
    return out;
}

std::string TrialExporter::csv(std::optional<std::int64_t> session) const {
    const std::vector<SessionRecord> sessions = chosen(session);
    std::vector<std::string> parameters; // union over the sessions, in first-seen order
    for (const SessionRecord& record : sessions)
        for (const auto& name : parsedOr(record.parameters, Json::array()))
            if (name.is_string() &&
                std::find(parameters.begin(), parameters.end(), name.get<std::string>()) == parameters.end())
                parameters.push_back(name.get<std::string>());
    std::vector<std::string> header{"session",   "kernel",     "problem",      "device",    "backend",
                                    "strategy",  "number",     "config_index", "status",    "time_ms",
                                    "median_ms", "min_ms",     "mean_ms",      "stdev_ms",  "cv",
                                    "predicted", "compile_ms", "batch",        "elapsed_s", "finished_at"};
    for (const std::string& name : parameters)
        header.push_back("param:" + name);
    for (const char* column : {"config", "samples", "metrics", "log"})
        header.emplace_back(column);
    CsvTable table;
    table.addRow(header);
    for (const SessionRecord& record : sessions)
        for (const StoredTrial& t : m_store.trials(record.id)) {
            const Json config = parsedOr(t.config, Json::object());
            std::vector<std::string> row{std::to_string(t.session),
                                         record.kernel,
                                         record.problem,
                                         record.device,
                                         record.backend,
                                         record.strategy,
                                         std::to_string(t.number),
                                         std::to_string(t.index),
                                         t.status,
                                         number(t.objective),
                                         number(t.median),
                                         number(t.min),
                                         number(t.mean),
                                         number(t.stdev),
                                         number(t.cv),
                                         t.predicted ? number(*t.predicted) : std::string(),
                                         number(t.compileMs),
                                         std::to_string(t.batch),
                                         number(t.elapsedS),
                                         number(t.finishedAt)};
            for (const std::string& name : parameters)
                row.push_back(config.contains(name) ? pythonText(config[name]) : std::string());
            Json samples = Json::array();
            for (const double sample : t.samples)
                samples.push_back(finite(sample));
            row.push_back(config.dump());
            row.push_back(samples.dump());
            row.push_back(metricsJson(t.metrics).dump());
            row.push_back(t.log);
            table.addRow(row);
        }
    return table.text();
}

} // namespace ts
