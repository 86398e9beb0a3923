#include "datasets/DatasetReader.h"

#include "datasets/DatasetJsonHandler.h"
#include "space/ValueLookup.h"
#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/Gzip.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

namespace ts {

namespace {

using Json = nlohmann::ordered_json;

constexpr double kOldFailureMark = 1e20; // Kernel Tuner before 0.4.4 stored failed configs as time 1e20

std::string name(const std::filesystem::path& path) {
    return path.string();
}

std::size_t lineAt(const std::string& text, std::size_t byte) {
    const auto end = text.begin() + static_cast<std::ptrdiff_t>(std::min(byte, text.size()));
    return static_cast<std::size_t>(std::count(text.begin(), end, '\n')) + 1;
}

// An interrupted Kernel Tuner run leaves its cache file without closing braces, possibly cut inside a
// record. Returns the text cut back to the last complete cache record with the braces closed, or nullopt
// when the text is not cut inside the top-level "cache" object.
std::optional<std::string> repairCutCache(const std::string& text) {
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    std::size_t stringStart = 0;
    std::string_view lastTopKey;
    std::optional<std::size_t> cacheOpen;
    std::optional<std::size_t> lastRecordEnd;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                inString = false;
                if (depth == 1) {
                    lastTopKey = std::string_view(text).substr(stringStart, i - stringStart);
                }
            }
            continue;
        }
        switch (c) {
        case '"':
            inString = true;
            stringStart = i + 1;
            break;
        case '{':
        case '[':
            ++depth;
            if (c == '{' && depth == 2 && lastTopKey == "cache") {
                cacheOpen = i;
            }
            break;
        case '}':
        case ']':
            --depth;
            if (cacheOpen && depth == 2 && c == '}') {
                lastRecordEnd = i;
            } else if (cacheOpen && depth == 1) {
                return std::nullopt; // the cache is complete: the damage is elsewhere
            }
            break;
        default:
            break;
        }
    }
    if (!cacheOpen) {
        return std::nullopt;
    }
    const std::size_t cut = lastRecordEnd ? *lastRecordEnd + 1 : *cacheOpen + 1;
    return text.substr(0, cut) + "\n}\n}\n";
}

std::string parseDetail(const std::string& what) {
    const auto column = what.find("column");
    const auto colon = what.find(": ", column == std::string::npos ? 0 : column);
    std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    while (!detail.empty() && (detail.back() == '.' || detail.back() == ' ')) {
        detail.pop_back();
    }
    return detail;
}

std::unique_ptr<DatasetJsonHandler> parseJson(const std::string& text, const std::filesystem::path& path) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        throw Error(fmt::format("{} is empty (line 1): expected a JSON dataset.", name(path)));
    }
    auto parsed = std::make_unique<DatasetJsonHandler>();
    if (Json::sax_parse(text, parsed.get())) {
        return parsed;
    }
    if (parsed->tooDeep()) {
        throw Error(jsonTooDeepMessage(name(path)));
    }
    if (parsed->tooWide()) {
        throw Error(jsonTooWideMessage(name(path)));
    }
    if (auto repaired = repairCutCache(text)) {
        auto second = std::make_unique<DatasetJsonHandler>();
        if (Json::sax_parse(*repaired, second.get())) {
            return second;
        }
    }
    throw Error(fmt::format("{} is not valid JSON: parse error at line {} ({}).", name(path),
                            lineAt(text, parsed->errorByte().value_or(0)),
                            parseDetail(parsed->errorMessage())));
}

std::unique_ptr<DatasetJsonHandler> readJson(const std::filesystem::path& path) {
    return parseJson(readMaybeGzippedFile(path), path);
}

std::string textOf(const Json& value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string textOf(const Json& object, const char* key) {
    const auto it = object.find(key);
    return it == object.end() ? std::string() : textOf(*it);
}

double numberOr(const Json& object, const char* key, double fallback) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

// Parameter types and values as the JSON holds them.
Value valueOf(const Json& value, ParameterType type) {
    switch (type) {
    case ParameterType::Bool:
        return value.get<bool>();
    case ParameterType::Integer:
        return value.get<std::int64_t>();
    case ParameterType::Real:
        return value.get<double>();
    case ParameterType::String:
        break;
    }
    if (value.is_string()) {
        return value.get<std::string>();
    }
    if (value.is_boolean()) {
        return std::string(value.get<bool>() ? "True" : "False");
    }
    return value.dump();
}

template <typename Range> ParameterType typeOf(const Range& values) {
    bool allBool = true;
    bool allNumber = true;
    bool allInteger = true;
    for (const Json* value : values) {
        allBool = allBool && value->is_boolean();
        allNumber = allNumber && value->is_number();
        allInteger = allInteger && (value->is_number_integer());
    }
    if (allBool) {
        return ParameterType::Bool;
    }
    if (allNumber) {
        return allInteger ? ParameterType::Integer : ParameterType::Real;
    }
    return ParameterType::String;
}

// Parameter of a results file (T4, KTT): the sorted unique values seen.
Parameter parameterFromSeen(const std::string& parameterName, const std::vector<const Json*>& seen) {
    Parameter parameter{parameterName, typeOf(seen), {}};
    switch (parameter.type) {
    case ParameterType::Bool:
    case ParameterType::Integer:
    case ParameterType::Real: {
        std::set<double> numbers;
        std::set<std::int64_t> integers;
        for (const Json* value : seen) {
            if (parameter.type == ParameterType::Integer) {
                integers.insert(value->get<std::int64_t>());
            } else {
                numbers.insert(value->is_boolean() ? (value->get<bool>() ? 1.0 : 0.0) : value->get<double>());
            }
        }
        for (auto integer : integers) {
            parameter.values.emplace_back(integer);
        }
        for (double number : numbers) {
            if (parameter.type == ParameterType::Bool) {
                parameter.values.emplace_back(number != 0.0);
            } else {
                parameter.values.emplace_back(number);
            }
        }
        break;
    }
    case ParameterType::String: {
        std::set<std::string> texts;
        for (const Json* value : seen) {
            texts.insert(std::get<std::string>(valueOf(*value, ParameterType::String)));
        }
        for (const auto& text : texts) {
            parameter.values.emplace_back(text);
        }
        break;
    }
    }
    return parameter;
}

std::vector<SearchSpace::Index> stridesOf(const std::vector<Parameter>& parameters) {
    std::vector<SearchSpace::Index> strides(parameters.size(), 1);
    for (std::size_t i = parameters.size(); i-- > 1;) {
        strides[i - 1] = strides[i] * parameters[i].values.size();
    }
    return strides;
}

MeasureStatus kernelTunerFailure(std::string_view text) {
    if (text.find("CompilationFailed") != std::string_view::npos) {
        return MeasureStatus::CompileFailed;
    }
    if (text.find("RuntimeFailed") != std::string_view::npos) {
        return MeasureStatus::RuntimeFailed;
    }
    if (text.find("InvalidConfig") != std::string_view::npos) {
        return MeasureStatus::Invalid;
    }
    return MeasureStatus::RuntimeFailed;
}

// Milliseconds per unit of a time unit's name; nullopt when unknown.
std::optional<double> millisecondsPer(std::string unit) {
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
    if (unit == "ms" || unit == "milliseconds" || unit == "miliseconds" || unit == "millisecond") {
        return 1.0;
    }
    if (unit == "us" || unit == "microseconds" || unit == "microsecond" || unit == "\xc2\xb5s") {
        return 1e-3;
    }
    if (unit == "ns" || unit == "nanoseconds" || unit == "nanosecond") {
        return 1e-6;
    }
    if (unit == "s" || unit == "seconds" || unit == "second") {
        return 1e3;
    }
    return std::nullopt;
}

void appendNumbers(const Json& value, double scale, std::vector<double>& out) {
    if (value.is_number()) {
        out.push_back(value.get<double>() * scale);
    } else if (value.is_array()) {
        for (const auto& item : value) {
            appendNumbers(item, scale, out);
        }
    }
}

// A measured time of a successful config must be a positive number: zero or negative is a broken file, not
// a fast kernel. `what` names the entry ("cache record \"4,8\"", "result 3").
void requirePositiveTimes(const Measurement& measurement, const std::filesystem::path& path,
                          const std::string& what) {
    const auto check = [&](double time, const char* role) {
        if (!(time > 0) || !std::isfinite(time)) {
            throw Error(fmt::format("{} has {} with {} {}, which is not a positive time.", name(path), what,
                                    role, time));
        }
    };
    check(measurement.objective, "time");
    for (const double sample : measurement.samples) {
        check(sample, "sample");
    }
    if (measurement.compileMs < 0) {
        check(measurement.compileMs, "compile time");
    }
}

const Json& requireKey(const Json& object, const char* key, const std::filesystem::path& path) {
    const auto it = object.find(key);
    if (it == object.end()) {
        throw Error(fmt::format("{} has no \"{}\" key.", name(path), key));
    }
    return *it;
}

void finish(Dataset& dataset, std::vector<Parameter> parameters, std::vector<SearchSpace::Index> indices) {
    if (indices.empty()) {
        throw Error(fmt::format("{} holds no measured configurations.", name(dataset.path)));
    }
    dataset.space = SearchSpace::fromValidSet(std::move(parameters), std::move(indices));
}

Dataset kernelTunerFromJson(const DatasetJsonHandler& parsed, const std::filesystem::path& path) {
    const Json& root = parsed.root();
    Dataset dataset;
    dataset.path = path;
    dataset.format = "kernel_tuner";
    dataset.deviceName = textOf(root, "device_name");
    dataset.kernelName = textOf(root, "kernel_name");
    if (const auto it = root.find("problem_size"); it != root.end()) {
        dataset.problemSize = it->dump();
    }
    dataset.objective = "time";
    const std::string objectiveKey = root.contains("objective") ? textOf(root["objective"]) : "time";

    const Json& tuneParams = requireKey(root, "tune_params", path);
    if (!tuneParams.is_object()) {
        throw Error(fmt::format("{} has a \"tune_params\" that is not an object.", name(path)));
    }
    std::vector<std::string> keys;
    if (const auto it = root.find("tune_params_keys"); it != root.end() && it->is_array()) {
        for (const auto& key : *it) {
            keys.push_back(textOf(key));
        }
    } else {
        for (const auto& [key, values] : tuneParams.items()) {
            keys.push_back(key);
        }
    }
    std::vector<Parameter> parameters;
    for (const auto& key : keys) {
        const auto it = tuneParams.find(key);
        if (it == tuneParams.end() || !it->is_array() || it->empty()) {
            throw Error(
                fmt::format("{} lists \"{}\" in tune_params_keys but tune_params has no values for it.",
                            name(path), key));
        }
        std::vector<const Json*> values;
        for (const auto& value : *it) {
            values.push_back(&value);
        }
        Parameter parameter{key, typeOf(values), {}};
        for (const Json* value : values) {
            parameter.values.push_back(valueOf(*value, parameter.type));
        }
        parameters.push_back(std::move(parameter));
    }
    std::vector<ValueLookup> lookups(parameters.begin(), parameters.end());
    const auto strides = stridesOf(parameters);

    if (!requireKey(root, "cache", path).is_object()) {
        throw Error(fmt::format("{} has a \"cache\" that is not an object.", name(path)));
    }
    if (const auto& bad = parsed.badRecordKey()) {
        throw Error(fmt::format("{} has cache record \"{}\" that is not an object.", name(path), *bad));
    }
    constexpr std::uint32_t kNoField = ~0U;
    std::vector<std::uint32_t> parameterFields;
    for (const auto& parameter : parameters) {
        parameterFields.push_back(parsed.fieldId(parameter.name).value_or(kNoField));
    }
    const std::uint32_t objectiveField = parsed.fieldId(objectiveKey).value_or(kNoField);
    const std::uint32_t timeField = parsed.fieldId("time").value_or(kNoField);
    const std::uint32_t errorField = parsed.fieldId("__error__").value_or(kNoField);
    const std::uint32_t compileField = parsed.fieldId("compile_time").value_or(kNoField);

    const auto& records = parsed.records();
    std::vector<SearchSpace::Index> indices;
    indices.reserve(records.size());
    dataset.entries.reserve(records.size());
    std::vector<std::string_view> keyParts;
    for (const auto& record : records) {
        const auto field = [&record](std::uint32_t id) -> const Json* {
            for (const auto& [fieldId, value] : record.fields) {
                if (fieldId == id) {
                    return &value;
                }
            }
            return nullptr;
        };
        keyParts.clear();
        SearchSpace::Index index = 0;
        for (std::size_t p = 0; p < parameters.size(); ++p) {
            std::optional<std::uint32_t> position;
            std::string shown;
            if (const Json* value = field(parameterFields[p])) {
                position = lookups[p].find(*value);
                shown = position ? std::string() : textOf(*value);
            } else {
                if (keyParts.empty()) {
                    std::string_view rest(record.key);
                    for (auto comma = rest.find(','); comma != std::string_view::npos;
                         comma = rest.find(',')) {
                        keyParts.push_back(rest.substr(0, comma));
                        rest.remove_prefix(comma + 1);
                    }
                    keyParts.push_back(rest);
                }
                if (keyParts.size() != parameters.size()) {
                    throw Error(fmt::format("{} has cache key \"{}\" with {} values for {} parameters.",
                                            name(path), record.key, keyParts.size(), parameters.size()));
                }
                position = lookups[p].findText(keyParts[p]);
                shown = position ? std::string() : std::string(keyParts[p]);
            }
            if (!position) {
                throw Error(
                    fmt::format("{} has cache record \"{}\" with {} = {}, which is not in tune_params.",
                                name(path), record.key, parameters[p].name, shown));
            }
            index += *position * strides[p];
        }

        Measurement measurement;
        if (const Json* compile = field(compileField); compile != nullptr && compile->is_number()) {
            measurement.compileMs = compile->get<double>();
        }
        const Json* error = field(errorField);
        const Json* objective = field(objectiveField);
        if (objective == nullptr || (!objective->is_string() && objectiveField != timeField)) {
            objective = field(timeField);
        }
        if (error != nullptr) {
            measurement.log = textOf(*error);
            measurement.status = kernelTunerFailure(measurement.log);
        } else if (objective == nullptr) {
            measurement.status = MeasureStatus::RuntimeFailed;
            measurement.log = "the cache record has no time";
        } else if (objective->is_string()) {
            measurement.log = objective->get<std::string>();
            measurement.status = kernelTunerFailure(measurement.log);
        } else if (!objective->is_number() || objective->get<double>() >= kOldFailureMark ||
                   !std::isfinite(objective->get<double>())) {
            measurement.log = objective->dump();
            measurement.status = MeasureStatus::RuntimeFailed;
        } else {
            measurement.status = MeasureStatus::Ok;
            measurement.objective = objective->get<double>();
            measurement.samples = record.times;
            requirePositiveTimes(measurement, path, fmt::format("cache record \"{}\"", record.key));
        }
        indices.push_back(index);
        dataset.entries.insert_or_assign(index, std::move(measurement));
    }
    finish(dataset, std::move(parameters), std::move(indices));
    return dataset;
}

// One row of a results file (T4, KTT) before the parameters are known.
struct ResultRow {
    std::vector<const Json*> values; // per parameter, in the first row's order
    Measurement measurement;
};

void assemble(Dataset& dataset, const std::vector<std::string>& names, std::vector<ResultRow>& rows) {
    std::vector<Parameter> parameters;
    for (std::size_t p = 0; p < names.size(); ++p) {
        std::vector<const Json*> seen;
        seen.reserve(rows.size());
        for (const auto& row : rows) {
            seen.push_back(row.values[p]);
        }
        parameters.push_back(parameterFromSeen(names[p], seen));
    }
    std::vector<ValueLookup> lookups(parameters.begin(), parameters.end());
    const auto strides = stridesOf(parameters);
    std::vector<SearchSpace::Index> indices;
    indices.reserve(rows.size());
    dataset.entries.reserve(rows.size());
    for (auto& row : rows) {
        SearchSpace::Index index = 0;
        for (std::size_t p = 0; p < parameters.size(); ++p) {
            const auto position = parameters[p].type == ParameterType::String
                                      ? lookups[p].findText(std::get<std::string>(
                                            valueOf(*row.values[p], ParameterType::String)))
                                      : lookups[p].find(*row.values[p]);
            index += position.value_or(0) * strides[p]; // always found: the values come from these rows
        }
        indices.push_back(index);
        dataset.entries.insert_or_assign(index, std::move(row.measurement));
    }
    finish(dataset, std::move(parameters), std::move(indices));
}

MeasureStatus t4Status(const std::string& invalidity) {
    if (invalidity == "correct") {
        return MeasureStatus::Ok;
    }
    if (invalidity == "compile") {
        return MeasureStatus::CompileFailed;
    }
    if (invalidity == "correctness") {
        return MeasureStatus::WrongResult;
    }
    if (invalidity == "constraints") {
        return MeasureStatus::Invalid;
    }
    if (invalidity == "timeout") {
        return MeasureStatus::Timeout;
    }
    return MeasureStatus::RuntimeFailed;
}

Dataset t4FromJson(const Json& root, const std::filesystem::path& path) {
    Dataset dataset;
    dataset.path = path;
    dataset.format = "t4";
    dataset.objective = "time";
    double defaultScale = 1.0;
    if (const auto metadata = root.find("metadata"); metadata != root.end() && metadata->is_object()) {
        for (const char* key : {"device", "device_name"}) {
            if (metadata->contains(key)) {
                dataset.deviceName = textOf(metadata->at(key));
            }
        }
        dataset.kernelName = textOf(*metadata, "kernel_name");
        if (metadata->contains("problem_size")) {
            dataset.problemSize = metadata->at("problem_size").dump();
        }
        if (const auto unit = metadata->find("timeunit"); unit != metadata->end()) {
            const auto scale = millisecondsPer(textOf(*unit));
            if (!scale) {
                throw Error(fmt::format("{} has metadata timeunit \"{}\", which is not a time unit.",
                                        name(path), textOf(*unit)));
            }
            defaultScale = *scale;
        }
    }
    const Json& results = requireKey(root, "results", path);
    if (!results.is_array()) {
        throw Error(fmt::format("{} has a \"results\" that is not a list.", name(path)));
    }
    std::vector<std::string> names;
    std::vector<ResultRow> rows;
    rows.reserve(results.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
        const Json& item = results[i];
        const auto configuration = item.find("configuration");
        if (!item.is_object() || configuration == item.end() || !configuration->is_object()) {
            throw Error(fmt::format("{} has result {} without a \"configuration\" object.", name(path), i));
        }
        if (i == 0) {
            for (const auto& [key, value] : configuration->items()) {
                names.push_back(key);
            }
        }
        ResultRow row;
        for (const auto& parameterName : names) {
            const auto value = configuration->find(parameterName);
            if (value == configuration->end() || configuration->size() != names.size()) {
                throw Error(fmt::format("{} has result {} whose configuration does not match the first one's "
                                        "parameters (\"{}\").",
                                        name(path), i, parameterName));
            }
            row.values.push_back(&*value);
        }

        std::string objectiveName = "time";
        if (const auto objectives = item.find("objectives");
            objectives != item.end() && objectives->is_array() && !objectives->empty()) {
            objectiveName = textOf(objectives->front());
        }
        const Json* measured = nullptr;
        double scale = defaultScale;
        if (const auto measurements = item.find("measurements"); measurements != item.end()) {
            for (const auto& m : *measurements) {
                if (m.is_object() && textOf(m, "name") == objectiveName) {
                    measured = &m["value"];
                    const std::string unit = textOf(m, "unit");
                    if (!unit.empty()) {
                        const auto unitScale = millisecondsPer(unit);
                        if (!unitScale) {
                            throw Error(
                                fmt::format("{} has result {} with measurement unit \"{}\", which is not "
                                            "a time unit.",
                                            name(path), i, unit));
                        }
                        scale = *unitScale;
                    }
                    break;
                }
            }
        }
        const std::string invalidity = item.contains("invalidity") ? textOf(item["invalidity"]) : "correct";
        Measurement& measurement = row.measurement;
        measurement.status = t4Status(invalidity);
        if (const auto times = item.find("times"); times != item.end() && times->is_object()) {
            measurement.compileMs =
                scale * numberOr(*times, "compilation", numberOr(*times, "compilation_time", 0));
            if (measurement.status == MeasureStatus::Ok) {
                if (const auto runtimes = times->find("runtimes"); runtimes != times->end()) {
                    appendNumbers(*runtimes, scale, measurement.samples);
                }
            }
        } else if (times != item.end() && measurement.status == MeasureStatus::Ok) {
            appendNumbers(*times, scale, measurement.samples);
        }
        if (measurement.status == MeasureStatus::Ok) {
            if (measured == nullptr) {
                throw Error(fmt::format("{} has result {} without a \"{}\" measurement.", name(path), i,
                                        objectiveName));
            }
            if (measured->is_number()) {
                measurement.objective = measured->get<double>() * scale;
                requirePositiveTimes(measurement, path, fmt::format("result {}", i));
            } else {
                measurement.status = kernelTunerFailure(textOf(*measured));
                measurement.log = textOf(*measured);
                measurement.samples.clear();
            }
        } else {
            measurement.log = measured != nullptr && measured->is_string()
                                  ? fmt::format("{}: {}", invalidity, measured->get<std::string>())
                                  : invalidity;
        }
        rows.push_back(std::move(row));
    }
    assemble(dataset, names, rows);
    return dataset;
}

MeasureStatus kttStatus(const std::string& status) {
    if (status == "Ok") {
        return MeasureStatus::Ok;
    }
    if (status == "CompilationFailed") {
        return MeasureStatus::CompileFailed;
    }
    if (status == "ValidationFailed") {
        return MeasureStatus::WrongResult;
    }
    if (status == "DeviceLimitsExceeded") {
        return MeasureStatus::Invalid;
    }
    return MeasureStatus::RuntimeFailed;
}

Dataset kttFromJson(const Json& root, const std::filesystem::path& path) {
    Dataset dataset;
    dataset.path = path;
    dataset.format = "ktt";
    dataset.objective = "time";
    double scale = 1e-3; // KTT's default time unit is microseconds
    if (const auto metadata = root.find("Metadata"); metadata != root.end() && metadata->is_object()) {
        dataset.deviceName = textOf(*metadata, "Device");
        if (const auto unit = metadata->find("TimeUnit"); unit != metadata->end()) {
            const auto unitScale = millisecondsPer(textOf(*unit));
            if (!unitScale) {
                throw Error(fmt::format("{} has Metadata TimeUnit \"{}\", which is not a time unit.",
                                        name(path), textOf(*unit)));
            }
            scale = *unitScale;
        }
    }
    const Json& results = requireKey(root, "Results", path);
    if (!results.is_array()) {
        throw Error(fmt::format("{} has a \"Results\" that is not a list.", name(path)));
    }
    std::vector<std::string> names;
    std::vector<ResultRow> rows;
    rows.reserve(results.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
        const Json& item = results[i];
        const auto configuration = item.find("Configuration");
        if (!item.is_object() || configuration == item.end() || !configuration->is_array()) {
            throw Error(fmt::format("{} has result {} without a \"Configuration\" list.", name(path), i));
        }
        if (i == 0) {
            dataset.kernelName = textOf(item, "KernelName");
            for (const auto& pair : *configuration) {
                names.push_back(textOf(pair, "Name"));
            }
        }
        ResultRow row;
        if (configuration->size() != names.size()) {
            throw Error(fmt::format("{} has result {} whose Configuration does not match the first one's "
                                    "parameters.",
                                    name(path), i));
        }
        for (std::size_t p = 0; p < names.size(); ++p) {
            const Json& pair = (*configuration)[p];
            const auto value = pair.find("Value");
            if (textOf(pair, "Name") != names[p] || value == pair.end()) {
                throw Error(fmt::format("{} has result {} whose Configuration does not match the first one's "
                                        "parameters (\"{}\").",
                                        name(path), i, names[p]));
            }
            row.values.push_back(&*value);
        }
        const std::string status = textOf(item, "Status");
        Measurement& measurement = row.measurement;
        measurement.status = kttStatus(status);
        if (measurement.status == MeasureStatus::Ok) {
            double total = numberOr(item, "TotalDuration", 0.0);
            if (const auto computations = item.find("ComputationResults");
                total <= 0.0 && computations != item.end() && computations->is_array()) {
                for (const auto& computation : *computations) {
                    total += numberOr(computation, "Duration", 0.0);
                }
            }
            measurement.objective = total * scale;
            measurement.samples = {measurement.objective};
            requirePositiveTimes(measurement, path, fmt::format("result {}", i));
        } else {
            measurement.log = status;
        }
        rows.push_back(std::move(row));
    }
    assemble(dataset, names, rows);
    return dataset;
}

bool isKernelTuner(const Json& root) {
    return root.is_object() && root.contains("tune_params") && root.contains("cache");
}
bool isT4(const Json& root) {
    return root.is_object() && root.contains("results");
}
bool isKtt(const Json& root) {
    return root.is_object() && root.contains("Results");
}

} // namespace

Dataset readDataset(const std::filesystem::path& path) {
    const auto parsed = readJson(path);
    const Json& root = parsed->root();
    if (isKernelTuner(root)) {
        return kernelTunerFromJson(*parsed, path);
    }
    if (isT4(root)) {
        return t4FromJson(root, path);
    }
    if (isKtt(root)) {
        return kttFromJson(root, path);
    }
    throw Error(fmt::format("{} is not a Kernel Tuner cache, T4 or KTT file.", name(path)));
}

namespace {

// The header of a Kernel Tuner cache or T4 file from a prefix of its text, when its keys come in the usual
// order (the parameters and metadata before the records); nullopt otherwise (the prefix is too short, or it
// is another format).
std::optional<DatasetHeader> headerOfPrefix(const std::string& text, const std::filesystem::path& path) {
    for (const char* stop : {"cache", "results"}) {
        DatasetJsonHandler handler;
        handler.stopAt(stop);
        const Json& root = handler.root();
        if (Json::sax_parse(text, &handler) || !handler.stopped())
            continue;
        DatasetHeader header;
        header.path = path;
        if (std::string(stop) == "cache") { // Kernel Tuner
            if (!root.contains("tune_params") || !root["tune_params"].is_object())
                return std::nullopt;
            header.kernelName = textOf(root, "kernel_name");
            header.deviceName = textOf(root, "device_name");
            if (const auto it = root.find("problem_size"); it != root.end())
                header.problemSize = it->dump();
            if (const auto keys = root.find("tune_params_keys"); keys != root.end() && keys->is_array())
                for (const auto& key : *keys)
                    header.parameterNames.push_back(textOf(key));
            else
                for (const auto& [parameter, values] : root["tune_params"].items())
                    header.parameterNames.push_back(parameter);
            return header;
        }
        // T4: the metadata, then the parameter names of the first result's configuration.
        const auto metadata = root.find("metadata");
        if (metadata == root.end() || !metadata->is_object())
            return std::nullopt;
        for (const char* key : {"device", "device_name"})
            if (metadata->contains(key))
                header.deviceName = textOf(metadata->at(key));
        header.kernelName = textOf(*metadata, "kernel_name");
        if (metadata->contains("problem_size"))
            header.problemSize = metadata->at("problem_size").dump();
        const std::size_t results = text.find("\"results\"");
        const std::size_t configuration = text.find("\"configuration\"", results);
        const std::size_t open = text.find('{', configuration);
        if (results == std::string::npos || configuration == std::string::npos || open == std::string::npos)
            return std::nullopt;
        DatasetJsonHandler first;
        if (!Json::sax_parse(text.begin() + static_cast<std::ptrdiff_t>(open), text.end(), &first,
                             Json::input_format_t::json, false) ||
            !first.root().is_object())
            return std::nullopt;
        for (const auto& [parameter, value] : first.root().items())
            header.parameterNames.push_back(parameter);
        return header;
    }
    return std::nullopt;
}

} // namespace

DatasetHeader readDatasetHeader(const std::filesystem::path& path) {
    std::optional<DatasetHeader> header;
    // Headers are small: a prefix of the text nearly always holds one; the whole file is read otherwise.
    for (std::size_t limit = 64 * 1024; !header && limit <= 4 * 1024 * 1024; limit *= 16) {
        const std::string text = readMaybeGzippedFile(path, limit);
        header = headerOfPrefix(text, path);
        if (text.size() < limit)
            break; // that was the whole file
    }
    if (!header) { // another format, or a file whose records come before its parameters
        const Dataset dataset = readDataset(path);
        header = DatasetHeader{path, dataset.kernelName, dataset.deviceName, dataset.problemSize, {}};
        for (const Parameter& parameter : dataset.space.parameters())
            header->parameterNames.push_back(parameter.name);
    }
    std::sort(header->parameterNames.begin(), header->parameterNames.end());
    return *header;
}

Dataset readKernelTunerCache(const std::filesystem::path& path) {
    const auto parsed = readJson(path);
    if (!isKernelTuner(parsed->root())) {
        throw Error(fmt::format(
            "{} is not a Kernel Tuner cache (it needs \"tune_params\" and \"cache\" keys).", name(path)));
    }
    return kernelTunerFromJson(*parsed, path);
}

Dataset readT4Results(const std::filesystem::path& path) {
    const auto parsed = readJson(path);
    const Json& root = parsed->root();
    if (!isT4(root)) {
        throw Error(fmt::format("{} is not a T4 results file (it has no \"results\" key).", name(path)));
    }
    return t4FromJson(root, path);
}

Dataset readKttOutput(const std::filesystem::path& path) {
    const auto parsed = readJson(path);
    const Json& root = parsed->root();
    if (!isKtt(root)) {
        throw Error(fmt::format("{} is not a KTT output file (it has no \"Results\" key).", name(path)));
    }
    return kttFromJson(root, path);
}

} // namespace ts
