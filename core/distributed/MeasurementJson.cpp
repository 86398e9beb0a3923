#include "distributed/MeasurementJson.h"

#include "util/Error.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace ts {

namespace {

nlohmann::json number(double value) {
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

double numberOf(const nlohmann::json& json, const std::string& what) {
    if (json.is_null())
        return std::numeric_limits<double>::quiet_NaN();
    if (!json.is_number())
        throw Error(fmt::format("The {} has {} where a number belongs.", what, json.dump()));
    return json.get<double>();
}

} // namespace

nlohmann::json measurementToJson(const Measurement& m) {
    nlohmann::json samples = nlohmann::json::array();
    for (double sample : m.samples)
        samples.push_back(number(sample));
    nlohmann::json metrics = nlohmann::json::object();
    for (const auto& [name, value] : m.metrics)
        metrics[name] = number(value);
    return {{"status", toString(m.status)},
            {"objective", number(m.objective)},
            {"samples", samples},
            {"compile_ms", number(m.compileMs)},
            {"log", m.log},
            {"metrics", metrics}};
}

Measurement measurementFromJson(const nlohmann::json& json, const std::string& what) {
    if (!json.is_object() || !json.contains("status") || !json["status"].is_string())
        throw Error(fmt::format("The {} is not a measurement (no status).", what));
    Measurement m;
    const std::optional<MeasureStatus> status = measureStatusFromString(json["status"].get<std::string>());
    if (!status)
        throw Error(
            fmt::format("The {} has the unknown status \"{}\".", what, json["status"].get<std::string>()));
    m.status = *status;
    if (const auto objective = json.find("objective"); objective != json.end())
        m.objective = numberOf(*objective, what);
    if (const auto samples = json.find("samples"); samples != json.end() && samples->is_array())
        for (const nlohmann::json& sample : *samples)
            m.samples.push_back(numberOf(sample, what));
    if (const auto compile = json.find("compile_ms"); compile != json.end())
        m.compileMs = numberOf(*compile, what);
    if (const auto log = json.find("log"); log != json.end())
        m.log = log->is_string() ? log->get<std::string>() : log->dump();
    if (const auto metrics = json.find("metrics"); metrics != json.end() && metrics->is_object())
        for (const auto& [name, value] : metrics->items())
            m.metrics[name] = numberOf(value, what);
    if (m.status == MeasureStatus::Ok && !std::isfinite(m.objective))
        throw Error(fmt::format("The {} is Ok without a time.", what));
    return m;
}

} // namespace ts
