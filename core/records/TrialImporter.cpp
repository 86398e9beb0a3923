#include "records/TrialImporter.h"

#include "records/CsvTable.h"
#include "records/DatasetReader.h"
#include "records/DeviceFingerprint.h"
#include "records/SourceHash.h"
#include "util/Error.h"
#include "util/Gzip.h"
#include "util/Statistics.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

namespace ts {

namespace {

using Json = nlohmann::ordered_json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double unixNow() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string configJson(const Config& config, const std::vector<Parameter>& parameters) {
    Json object = Json::object();
    for (std::size_t i = 0; i < config.size(); ++i)
        std::visit([&](const auto& value) { object[parameters[i].name] = value; }, config[i]);
    return object.dump();
}

void summarizeInto(StoredTrial& trial) {
    const Statistics statistics = summarize(trial.samples);
    trial.median = statistics.median;
    trial.min = statistics.min;
    trial.mean = statistics.mean;
    trial.stdev = statistics.stdev;
    trial.cv = statistics.cv;
}

std::string lowerExtension(const std::filesystem::path& path) {
    std::string extension = path.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    return extension;
}

// Numbers of a JSON line: null (NaN or infinity on export) reads back as NaN.
double realOf(const Json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : kNaN;
}

std::string textOf(const Json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::map<std::string, double> metricsOf(const Json& value) {
    std::map<std::string, double> metrics;
    if (value.is_object())
        for (const auto& [name, number] : value.items())
            if (number.is_number())
                metrics[name] = number.get<double>();
    return metrics;
}

std::vector<double> samplesOf(const Json& value) {
    std::vector<double> samples;
    if (value.is_array())
        for (const auto& sample : value)
            samples.push_back(sample.is_number() ? sample.get<double>() : kNaN);
    return samples;
}

// Parses a number column of a CSV row: empty is NaN; anything else that is not a number is an error.
double csvReal(const std::string& text, const std::string& source, std::size_t line,
               const std::string& column) {
    if (text.empty())
        return kNaN;
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size())
        throw Error(fmt::format("{} has \"{}\" in column {} of line {}, which is not a number.", source, text,
                                column, line));
    return value;
}

std::int64_t csvInteger(const std::string& text, const std::string& source, std::size_t line,
                        const std::string& column) {
    const double value = csvReal(text, source, line, column);
    if (std::isnan(value))
        return 0;
    if (value != std::floor(value) || std::abs(value) > 9.0e18)
        throw Error(fmt::format("{} has \"{}\" in column {} of line {}, which is not an integer.", source,
                                text, column, line));
    return static_cast<std::int64_t>(value);
}

Json jsonCell(const std::string& text, const std::string& source, std::size_t line,
              const std::string& column) {
    if (text.empty())
        return Json();
    Json value = Json::parse(text, nullptr, false);
    if (value.is_discarded())
        throw Error(fmt::format("{} has column {} of line {} that is not valid JSON.", source, column, line));
    return value;
}

void checkStatus(const std::string& status, const std::string& source, std::size_t line) {
    if (!measureStatusFromString(status))
        throw Error(fmt::format("{} has status \"{}\" on line {}, which is not a trial status.", source,
                                status, line));
}

} // namespace

TrialImporter::Result TrialImporter::import(const std::filesystem::path& input, const std::string& format) {
    if (!std::filesystem::is_regular_file(input))
        throw Error(fmt::format("{} does not exist or is not a file.", input.string()));
    std::string chosen = format;
    if (chosen == "auto") {
        const std::string extension = lowerExtension(input);
        chosen = extension == ".jsonl" || extension == ".ndjson" ? "jsonl"
                 : extension == ".csv"                           ? "csv"
                                                                 : "dataset";
    }
    if (chosen == "jsonl")
        return store(parseJsonLines(readMaybeGzippedFile(input), input.string()), chosen);
    if (chosen == "csv")
        return store(parseCsv(readMaybeGzippedFile(input), input.string()), chosen);
    if (chosen == "dataset" || chosen == "kt-cache" || chosen == "t4" || chosen == "ktt")
        return importDataset(input, chosen);
    throw Error(fmt::format(
        "--format \"{}\" is not an import format (use auto, kt-cache, t4, ktt, jsonl or csv).", format));
}

TrialImporter::Result TrialImporter::importDataset(const std::filesystem::path& input,
                                                   const std::string& format) {
    Dataset dataset;
    try {
        dataset = format == "kt-cache" ? readKernelTunerCache(input)
                  : format == "t4"     ? readT4Results(input)
                  : format == "ktt"    ? readKttOutput(input)
                                       : readDataset(input);
    } catch (const Error&) {
        const Json root = Json::parse(readMaybeGzippedFile(input), nullptr, false);
        if (root.is_object() && root.value("format", "") == "tunescope-deployment")
            throw Error(
                fmt::format("{} is a deployment file: it holds only the best configs, not trials (import "
                            "a jsonl or csv export instead).",
                            input.string()));
        throw;
    }
    const std::string name = dataset.format == "kernel_tuner" ? "kt-cache" : dataset.format;
    SessionRecord session;
    session.kernel = dataset.kernelName.empty() ? input.stem().string() : dataset.kernelName;
    session.problem = dataset.problemSize;
    session.device = dataset.deviceName;
    session.backend = "import";
    session.dataset = std::filesystem::absolute(input).string();
    session.strategy = "import";
    session.options = "{}";
    session.spaceMode = "constrained";
    Json names = Json::array();
    for (const Parameter& parameter : dataset.space.parameters())
        names.push_back(parameter.name);
    session.parameters = names.dump();
    session.toolVersion = TUNESCOPE_VERSION;
    session.startedAt = unixNow();
    session.endedAt = session.startedAt;
    session.status = "completed";
    session.sourceHash = SourceHash::ofFile(input);
    if (!session.device.empty())
        session.deviceInfo = DeviceFingerprint::ofGpuName(session.device).toJson();
    session.settings = Json{{"imported_from", session.dataset}, {"format", name}}.dump();

    std::vector<SearchSpace::Index> indices;
    for (const auto& [index, measurement] : dataset.entries)
        indices.push_back(index);
    std::sort(indices.begin(), indices.end());
    Parsed parsed;
    std::vector<StoredTrial>& trials = parsed.trials.emplace_back();
    for (const SearchSpace::Index index : indices) {
        const Measurement& m = dataset.entries.at(index);
        StoredTrial& trial = trials.emplace_back();
        trial.number = static_cast<std::int64_t>(trials.size()) - 1;
        trial.index = index;
        trial.config = configJson(dataset.space.config(index), dataset.space.parameters());
        trial.status = toString(m.status);
        trial.objective = m.status == MeasureStatus::Ok ? m.objective : 0.0;
        trial.samples = m.samples;
        summarizeInto(trial);
        trial.compileMs = m.compileMs;
        trial.log = m.log;
        trial.metrics = m.metrics;
    }
    session.budget = static_cast<std::int64_t>(trials.size());
    parsed.sessions.push_back(session);
    return store(parsed, name);
}

TrialImporter::Result TrialImporter::store(const Parsed& parsed, const std::string& format) {
    Result result;
    result.format = format;
    if (parsed.sessions.empty())
        throw Error("The input holds no session to import.");
    result.sessions = m_store.importSessions(parsed.sessions, parsed.trials);
    for (const auto& trials : parsed.trials)
        result.trials += trials.size();
    return result;
}

TrialImporter::Parsed TrialImporter::parseJsonLines(const std::string& text, const std::string& source) {
    Parsed parsed;
    std::map<std::int64_t, std::size_t> byId; // id in the file -> position in parsed
    std::size_t line = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string_view content(text.data() + start, end - start);
        start = end + 1;
        ++line;
        if (content.find_first_not_of(" \t\r") == std::string_view::npos)
            continue;
        const Json object = Json::parse(content, nullptr, false);
        if (!object.is_object())
            throw Error(fmt::format("{} has line {} that is not a JSON object.", source, line));
        const std::string type = textOf(object, "type");
        const auto id = object.find(type == "session" ? "id" : "session");
        if (id == object.end() || !id->is_number_integer())
            throw Error(fmt::format("{} has line {} without a session id.", source, line));
        if (type == "session") {
            SessionRecord s;
            s.kernel = textOf(object, "kernel");
            s.problem = textOf(object, "problem");
            s.device = textOf(object, "device");
            s.backend = textOf(object, "backend");
            s.dataset = textOf(object, "dataset");
            s.strategy = textOf(object, "strategy");
            s.options = textOf(object, "options");
            const auto seed = object.find("seed");
            s.seed = seed != object.end() && seed->is_number_unsigned() ? seed->get<std::uint64_t>() : 0;
            s.spaceMode = textOf(object, "space_mode");
            const auto budget = object.find("budget");
            s.budget =
                budget != object.end() && budget->is_number_integer() ? budget->get<std::int64_t>() : 0;
            s.parameters = textOf(object, "parameters");
            s.toolVersion = textOf(object, "tool_version");
            s.startedAt = realOf(object, "started_at");
            if (std::isnan(s.startedAt))
                s.startedAt = unixNow(); // a hand-written file may leave out what our exports always carry
            if (s.options.empty())
                s.options = "{}";
            if (s.parameters.empty())
                s.parameters = "[]";
            if (s.spaceMode.empty())
                s.spaceMode = "constrained";
            if (const double ended = realOf(object, "ended_at"); !std::isnan(ended))
                s.endedAt = ended;
            s.status = textOf(object, "status");
            s.sourceHash = textOf(object, "source_hash");
            s.deviceInfo = textOf(object, "device_info");
            s.settings = textOf(object, "settings");
            if (s.kernel.empty() || s.status.empty())
                throw Error(
                    fmt::format("{} has a session on line {} without a kernel or status.", source, line));
            if (!byId.emplace(id->get<std::int64_t>(), parsed.sessions.size()).second)
                throw Error(
                    fmt::format("{} has session {} twice (line {}).", source, id->get<std::int64_t>(), line));
            parsed.sessions.push_back(std::move(s));
            parsed.trials.emplace_back();
        } else if (type == "trial") {
            const auto owner = byId.find(id->get<std::int64_t>());
            if (owner == byId.end())
                throw Error(fmt::format("{} has a trial on line {} before the line of its session {}.",
                                        source, line, id->get<std::int64_t>()));
            StoredTrial t;
            const auto number = object.find("number");
            const auto index = object.find("config_index");
            const auto config = object.find("config");
            if (number == object.end() || !number->is_number_integer() || index == object.end() ||
                !index->is_number_integer() || config == object.end() || !config->is_object())
                throw Error(fmt::format("{} has a trial on line {} without a number, config_index or config.",
                                        source, line));
            t.number = number->get<std::int64_t>();
            t.index = index->is_number_unsigned() ? index->get<std::uint64_t>()
                                                  : static_cast<std::uint64_t>(index->get<std::int64_t>());
            t.config = config->dump();
            t.status = textOf(object, "status");
            checkStatus(t.status, source, line);
            t.objective = realOf(object, "time_ms");
            t.samples = samplesOf(object.value("samples", Json::array()));
            t.median = realOf(object, "median_ms");
            t.min = realOf(object, "min_ms");
            t.mean = realOf(object, "mean_ms");
            t.stdev = realOf(object, "stdev_ms");
            t.cv = realOf(object, "cv");
            if (const double predicted = realOf(object, "predicted"); !std::isnan(predicted))
                t.predicted = predicted;
            t.compileMs = realOf(object, "compile_ms");
            t.log = textOf(object, "log");
            const auto batch = object.find("batch");
            t.batch = batch != object.end() && batch->is_number_integer() ? batch->get<std::int64_t>() : 0;
            t.elapsedS = realOf(object, "elapsed_s");
            t.finishedAt = realOf(object, "finished_at");
            t.metrics = metricsOf(object.value("metrics", Json::object()));
            parsed.trials[owner->second].push_back(std::move(t));
        } else {
            throw Error(
                fmt::format("{} has line {} whose type is neither \"session\" nor \"trial\".", source, line));
        }
    }
    return parsed;
}

TrialImporter::Parsed TrialImporter::parseCsv(const std::string& text, const std::string& source) {
    const std::vector<std::vector<std::string>> rows = CsvTable::parse(text, source);
    if (rows.empty())
        throw Error(fmt::format("{} is empty: expected a header line and trials.", source));
    std::map<std::string, std::size_t> columns;
    for (std::size_t i = 0; i < rows[0].size(); ++i)
        columns.emplace(rows[0][i], i);
    for (const char* required : {"config", "status", "time_ms"})
        if (!columns.count(required))
            throw Error(fmt::format("{} has no \"{}\" column in its header line.", source, required));
    Parsed parsed;
    std::map<std::string, std::size_t> bySession;
    for (std::size_t r = 1; r < rows.size(); ++r) {
        const std::vector<std::string>& row = rows[r];
        const std::size_t line = r + 1; // of the data, counting the header as line 1
        if (row.size() != rows[0].size())
            throw Error(fmt::format("{} has {} fields in row {} but {} columns in its header.", source,
                                    row.size(), line, rows[0].size()));
        const auto cell = [&](const char* name) {
            const auto it = columns.find(name);
            return it == columns.end() ? std::string() : row[it->second];
        };
        const std::string sessionKey = cell("session");
        auto [owner, added] = bySession.emplace(sessionKey, parsed.sessions.size());
        const Json config = jsonCell(cell("config"), source, line, "config");
        if (!config.is_object())
            throw Error(fmt::format("{} has a config in row {} that is not a JSON object.", source, line));
        if (added) {
            SessionRecord s;
            s.kernel = cell("kernel");
            s.problem = cell("problem");
            s.device = cell("device");
            s.backend = cell("backend").empty() ? "import" : cell("backend");
            s.dataset = source;
            s.strategy = cell("strategy").empty() ? "import" : cell("strategy");
            s.options = "{}";
            s.spaceMode = "constrained";
            Json names = Json::array();
            for (const auto& [name, value] : config.items())
                names.push_back(name);
            s.parameters = names.dump();
            s.toolVersion = TUNESCOPE_VERSION;
            s.startedAt = unixNow();
            s.endedAt = s.startedAt;
            s.status = "completed";
            if (!s.device.empty())
                s.deviceInfo = DeviceFingerprint::ofGpuName(s.device).toJson();
            parsed.sessions.push_back(std::move(s));
            parsed.trials.emplace_back();
        }
        std::vector<StoredTrial>& trials = parsed.trials[owner->second];
        StoredTrial t;
        t.number = cell("number").empty() ? static_cast<std::int64_t>(trials.size())
                                          : csvInteger(cell("number"), source, line, "number");
        t.index = static_cast<std::uint64_t>(csvInteger(cell("config_index"), source, line, "config_index"));
        t.config = config.dump();
        t.status = cell("status");
        checkStatus(t.status, source, line);
        t.objective = csvReal(cell("time_ms"), source, line, "time_ms");
        t.samples = samplesOf(jsonCell(cell("samples"), source, line, "samples"));
        if (columns.count("median_ms")) {
            t.median = csvReal(cell("median_ms"), source, line, "median_ms");
            t.min = csvReal(cell("min_ms"), source, line, "min_ms");
            t.mean = csvReal(cell("mean_ms"), source, line, "mean_ms");
            t.stdev = csvReal(cell("stdev_ms"), source, line, "stdev_ms");
            t.cv = csvReal(cell("cv"), source, line, "cv");
        } else {
            summarizeInto(t);
        }
        if (const double predicted = csvReal(cell("predicted"), source, line, "predicted");
            !std::isnan(predicted))
            t.predicted = predicted;
        t.compileMs = csvReal(cell("compile_ms"), source, line, "compile_ms");
        t.log = cell("log");
        t.batch = csvInteger(cell("batch"), source, line, "batch");
        t.elapsedS = csvReal(cell("elapsed_s"), source, line, "elapsed_s");
        t.finishedAt = csvReal(cell("finished_at"), source, line, "finished_at");
        t.metrics = metricsOf(jsonCell(cell("metrics"), source, line, "metrics"));
        trials.push_back(std::move(t));
    }
    for (std::size_t i = 0; i < parsed.sessions.size(); ++i)
        parsed.sessions[i].budget = static_cast<std::int64_t>(parsed.trials[i].size());
    return parsed;
}

} // namespace ts
