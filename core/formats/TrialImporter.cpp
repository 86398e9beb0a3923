#include "formats/TrialImporter.h"

#include "formats/CsvTable.h"
#include "datasets/DatasetReader.h"
#include "hardware/DeviceFingerprint.h"
#include "util/SourceHash.h"
#include "space/ValueJson.h"
#include "util/BoundedJson.h"
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
#include <optional>

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
        object[parameters[i].name] = valueToJson<Json>(config[i]);
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

std::string textOf(const Json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

enum class Range { Any, NonNegative, Positive };

// The fields of one JSON line of a session or trial, each checked for its type and range: a wrong one is
// an Error naming the file, the line and the key (a seed of "abc" or a budget of 1e300 is not a default).
// Absent keys and null (what NaN and infinity export as) read as nullopt.
class LineFields {
public:
    LineFields(const Json& object, const std::string& source, std::size_t line, const char* what)
        : m_object(object), m_source(source), m_line(line), m_what(what) {}

    std::string text(const char* key) const {
        const Json* value = find(key);
        if (value == nullptr)
            return {};
        if (!value->is_string())
            fail(key, *value, "a string");
        return value->get<std::string>();
    }

    // A string that holds JSON text (options, settings, ...): it must parse, within the depth limit.
    std::string embeddedJson(const char* key) const {
        std::string content = text(key);
        if (!content.empty() &&
            parseBoundedJson(content, fmt::format("{} line {} key \"{}\"", m_source, m_line, key))
                .is_discarded())
            throw Error(fmt::format("{} has a {} on line {} whose \"{}\" is not valid JSON text.", m_source,
                                    m_what, m_line, key));
        return content;
    }

    std::optional<double> real(const char* key, Range range) const {
        const Json* value = find(key);
        if (value == nullptr)
            return std::nullopt;
        if (!value->is_number() || !std::isfinite(value->get<double>()))
            fail(key, *value, "a number");
        checkRange(key, *value, range);
        return value->get<double>();
    }

    // A non-negative integer that fits in 63 bits (counts, numbers, budgets).
    std::optional<std::int64_t> count(const char* key) const {
        const Json* value = find(key);
        if (value == nullptr)
            return std::nullopt;
        if (!value->is_number_integer() ||
            (value->is_number_unsigned() &&
             value->get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())) ||
            (!value->is_number_unsigned() && value->get<std::int64_t>() < 0))
            fail(key, *value, "a non-negative integer");
        return value->get<std::int64_t>();
    }

    // A non-negative integer of up to 64 bits (seeds, config indices).
    std::optional<std::uint64_t> unsignedInteger(const char* key) const {
        const Json* value = find(key);
        if (value == nullptr)
            return std::nullopt;
        if (!value->is_number_unsigned() && !(value->is_number_integer() && value->get<std::int64_t>() >= 0))
            fail(key, *value, "a non-negative integer");
        return value->get<std::uint64_t>();
    }

    std::vector<double> samples(const char* key) const {
        std::vector<double> samples;
        const Json* value = find(key);
        if (value == nullptr)
            return samples;
        if (!value->is_array())
            fail(key, *value, "a list of times");
        for (const Json& sample : *value) {
            if (sample.is_null()) {
                samples.push_back(kNaN);
                continue;
            }
            if (!sample.is_number() || !(sample.get<double>() >= 0) || !std::isfinite(sample.get<double>()))
                fail(key, sample, "a list of non-negative times");
            samples.push_back(sample.get<double>());
        }
        return samples;
    }

    std::map<std::string, double> metrics(const char* key) const {
        std::map<std::string, double> metrics;
        const Json* value = find(key);
        if (value == nullptr)
            return metrics;
        if (!value->is_object())
            fail(key, *value, "an object of numbers");
        for (const auto& [name, number] : value->items()) {
            if (number.is_null())
                continue; // a metric is either known or absent
            if (!number.is_number() || !std::isfinite(number.get<double>()))
                fail(fmt::format("{}.{}", key, name), number, "a number");
            metrics[name] = number.get<double>();
        }
        return metrics;
    }

private:
    const Json* find(const char* key) const {
        const auto it = m_object.find(key);
        return it == m_object.end() || it->is_null() ? nullptr : &*it;
    }

    void checkRange(const std::string& key, const Json& value, Range range) const {
        const double number = value.get<double>();
        if (range == Range::NonNegative && number < 0)
            fail(key, value, "a non-negative number");
        if (range == Range::Positive && number <= 0)
            fail(key, value, "a positive number");
    }

    [[noreturn]] void fail(const std::string& key, const Json& value, const char* expected) const {
        std::string shown = value.dump();
        if (shown.size() > 40)
            shown = shown.substr(0, 37) + "...";
        throw Error(fmt::format("{} has a {} on line {} whose \"{}\" is {}, which is not {}.", m_source,
                                m_what, m_line, key, shown, expected));
    }

    const Json& m_object;
    const std::string& m_source;
    std::size_t m_line;
    const char* m_what;
};

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
               const std::string& column, Range range = Range::Any) {
    if (text.empty())
        return kNaN;
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || !std::isfinite(value))
        throw Error(fmt::format("{} has \"{}\" in column {} of line {}, which is not a number.", source, text,
                                column, line));
    if ((range == Range::NonNegative && value < 0) || (range == Range::Positive && value <= 0))
        throw Error(fmt::format("{} has \"{}\" in column {} of line {}, which is not a {} number.", source,
                                text, column, line, range == Range::Positive ? "positive" : "non-negative"));
    return value;
}

std::int64_t csvInteger(const std::string& text, const std::string& source, std::size_t line,
                        const std::string& column) {
    const double value = csvReal(text, source, line, column);
    if (std::isnan(value))
        return 0;
    if (value != std::floor(value) || value < 0 || value > 9.0e18)
        throw Error(fmt::format("{} has \"{}\" in column {} of line {}, which is not a non-negative integer.",
                                source, text, column, line));
    return static_cast<std::int64_t>(value);
}

Json jsonCell(const std::string& text, const std::string& source, std::size_t line,
              const std::string& column) {
    if (text.empty())
        return Json();
    Json value = parseBoundedOrderedJson(text, fmt::format("{} column {} of line {}", source, column, line));
    if (value.is_discarded())
        throw Error(fmt::format("{} has column {} of line {} that is not valid JSON.", source, column, line));
    return value;
}

void checkStatus(const std::string& status, const std::string& source, std::size_t line) {
    if (!measureStatusFromString(status))
        throw Error(fmt::format("{} has status \"{}\" on line {}, which is not a trial status.", source,
                                status, line));
}

// Only to explain a failed dataset read: the first error stands when this one cannot tell.
bool isDeploymentFile(const std::filesystem::path& input) {
    try {
        const nlohmann::json root = parseBoundedJson(readMaybeGzippedFile(input), input.string());
        const auto format = root.is_object() ? root.find("format") : root.end();
        return format != root.end() && *format == "tunescope-deployment";
    } catch (const Error&) {
        return false;
    }
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
        "The import format \"{}\" is not known (use auto, kt-cache, t4, ktt, jsonl or csv).", format));
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
        if (isDeploymentFile(input))
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

namespace {

// A problem size a lookup can tell apart from others: some size, and not only ones (Kernel Tuner writes [1]
// when it was given none).
bool hasProblemSize(const std::string& problem) {
    const Json value = parseBoundedOrderedJson(problem, "a stored problem size");
    bool meaningful = false;
    const auto visit = [&meaningful](const Json& size) {
        if (size.is_number() && size.get<double>() != 1.0)
            meaningful = true;
    };
    if (value.is_array() || value.is_object())
        for (const Json& size : value)
            visit(size);
    else
        visit(value);
    return meaningful;
}

bool hasText(const std::string& text) {
    return text.find_first_not_of(" \t") != std::string::npos;
}

} // namespace

void TrialImporter::supply(SessionRecord& session) const {
    if (!m_supplied.device.empty()) {
        session.device = m_supplied.device;
        const DeviceFingerprint host = DeviceFingerprint::ofHostCpu();
        session.deviceInfo =
            (host.name == session.device ? host : DeviceFingerprint::ofGpuName(session.device)).toJson();
    }
    if (m_supplied.problem)
        session.problem = m_supplied.problem(session.kernel);
}

TrialImporter::Result TrialImporter::store(Parsed parsed, const std::string& format) {
    Result result;
    result.format = format;
    if (parsed.sessions.empty())
        throw Error("The input holds no session to import.");
    for (SessionRecord& session : parsed.sessions) {
        supply(session);
        const auto note = [&result](const char* what) {
            if (std::find(result.missing.begin(), result.missing.end(), what) == result.missing.end())
                result.missing.push_back(what);
        };
        if (!hasText(session.device))
            note("a device name");
        if (!hasProblemSize(session.problem))
            note("a problem size");
    }
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
        const Json object = parseBoundedOrderedJson(content, fmt::format("{} line {}", source, line));
        if (!object.is_object())
            throw Error(fmt::format("{} has line {} that is not a JSON object.", source, line));
        const std::string type = textOf(object, "type");
        const auto id = object.find(type == "session" ? "id" : "session");
        if (id == object.end() || !id->is_number_integer())
            throw Error(fmt::format("{} has line {} without a session id.", source, line));
        if (type == "session") {
            const LineFields f(object, source, line, "session");
            SessionRecord s;
            s.kernel = f.text("kernel");
            s.problem = f.embeddedJson("problem");
            s.device = f.text("device");
            s.backend = f.text("backend");
            s.dataset = f.text("dataset");
            s.strategy = f.text("strategy");
            s.options = f.embeddedJson("options");
            s.seed = f.unsignedInteger("seed").value_or(0);
            s.spaceMode = f.text("space_mode");
            s.budget = f.count("budget").value_or(0);
            s.parameters = f.embeddedJson("parameters");
            s.toolVersion = f.text("tool_version");
            // A hand-written file may leave out what our exports always carry.
            s.startedAt = f.real("started_at", Range::Any).value_or(unixNow());
            if (s.options.empty())
                s.options = "{}";
            if (s.parameters.empty())
                s.parameters = "[]";
            if (s.spaceMode.empty())
                s.spaceMode = "constrained";
            s.endedAt = f.real("ended_at", Range::Any);
            s.status = f.text("status");
            s.sourceHash = f.text("source_hash");
            s.deviceInfo = f.embeddedJson("device_info");
            s.settings = f.embeddedJson("settings");
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
            const LineFields f(object, source, line, "trial");
            StoredTrial t;
            const auto number = f.count("number");
            const auto index = f.unsignedInteger("config_index");
            const auto config = object.find("config");
            if (!number || !index || config == object.end() || !config->is_object())
                throw Error(fmt::format("{} has a trial on line {} without a number, config_index or config.",
                                        source, line));
            t.number = *number;
            t.index = *index;
            t.config = config->dump();
            t.status = f.text("status");
            checkStatus(t.status, source, line);
            t.objective =
                f.real("time_ms", t.status == "ok" ? Range::Positive : Range::NonNegative).value_or(kNaN);
            t.samples = f.samples("samples");
            t.median = f.real("median_ms", Range::NonNegative).value_or(kNaN);
            t.min = f.real("min_ms", Range::NonNegative).value_or(kNaN);
            t.mean = f.real("mean_ms", Range::NonNegative).value_or(kNaN);
            t.stdev = f.real("stdev_ms", Range::NonNegative).value_or(kNaN);
            t.cv = f.real("cv", Range::NonNegative).value_or(kNaN);
            t.predicted = f.real("predicted", Range::Any);
            t.compileMs = f.real("compile_ms", Range::NonNegative).value_or(kNaN);
            t.log = f.text("log");
            t.batch = f.count("batch").value_or(0);
            t.elapsedS = f.real("elapsed_s", Range::NonNegative).value_or(kNaN);
            t.finishedAt = f.real("finished_at", Range::Any).value_or(kNaN);
            t.metrics = f.metrics("metrics");
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
        t.objective = csvReal(cell("time_ms"), source, line, "time_ms",
                              t.status == "ok" ? Range::Positive : Range::NonNegative);
        t.samples = samplesOf(jsonCell(cell("samples"), source, line, "samples"));
        if (columns.count("median_ms")) {
            t.median = csvReal(cell("median_ms"), source, line, "median_ms", Range::NonNegative);
            t.min = csvReal(cell("min_ms"), source, line, "min_ms", Range::NonNegative);
            t.mean = csvReal(cell("mean_ms"), source, line, "mean_ms", Range::NonNegative);
            t.stdev = csvReal(cell("stdev_ms"), source, line, "stdev_ms", Range::NonNegative);
            t.cv = csvReal(cell("cv"), source, line, "cv", Range::NonNegative);
        } else {
            summarizeInto(t);
        }
        if (const double predicted = csvReal(cell("predicted"), source, line, "predicted");
            !std::isnan(predicted))
            t.predicted = predicted;
        t.compileMs = csvReal(cell("compile_ms"), source, line, "compile_ms", Range::NonNegative);
        t.log = cell("log");
        t.batch = csvInteger(cell("batch"), source, line, "batch");
        t.elapsedS = csvReal(cell("elapsed_s"), source, line, "elapsed_s", Range::NonNegative);
        t.finishedAt = csvReal(cell("finished_at"), source, line, "finished_at");
        t.metrics = metricsOf(jsonCell(cell("metrics"), source, line, "metrics"));
        trials.push_back(std::move(t));
    }
    for (std::size_t i = 0; i < parsed.sessions.size(); ++i)
        parsed.sessions[i].budget = static_cast<std::int64_t>(parsed.trials[i].size());
    return parsed;
}

} // namespace ts
