#include "strategies/StrategyOptions.h"

#include "util/Error.h"

#include <charconv>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ts {

const char* toString(OptionType type) {
    switch (type) {
    case OptionType::Integer:
        return "int";
    case OptionType::Real:
        return "float";
    case OptionType::Bool:
        return "bool";
    case OptionType::String:
        return "string";
    }
    return "?";
}

namespace {

std::optional<std::int64_t> parseInteger(const std::string& text) {
    std::int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

std::optional<double> parseReal(const std::string& text) {
    try {
        std::size_t used = 0;
        double value = std::stod(text, &used);
        if (used == text.size())
            return value;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

std::optional<bool> parseBool(const std::string& text) {
    if (text == "true" || text == "True" || text == "1" || text == "yes" || text == "on")
        return true;
    if (text == "false" || text == "False" || text == "0" || text == "no" || text == "off")
        return false;
    return std::nullopt;
}

bool parses(OptionType type, const std::string& text) {
    switch (type) {
    case OptionType::Integer:
        return parseInteger(text).has_value();
    case OptionType::Real:
        return parseReal(text).has_value();
    case OptionType::Bool:
        return parseBool(text).has_value();
    case OptionType::String:
        return true;
    }
    return false;
}

} // namespace

StrategyOptions::StrategyOptions(const std::string& strategy, const std::vector<OptionSpec>& table,
                                 const std::map<std::string, std::string>& given) {
    for (const OptionSpec& spec : table) {
        m_values[spec.name] = spec.defaultValue;
        m_types[spec.name] = spec.type;
    }
    for (const auto& [name, value] : given) {
        auto type = m_types.find(name);
        if (type == m_types.end()) {
            std::string known;
            for (const OptionSpec& spec : table)
                known += (known.empty() ? "" : ", ") + spec.name;
            throw Error(fmt::format("Strategy \"{}\" has no option \"{}\" (its options: {}).", strategy, name,
                                    known.empty() ? "none" : known));
        }
        if (!parses(type->second, value))
            throw Error(fmt::format("Option \"{}\" of strategy \"{}\" expects a {} value, not \"{}\".", name,
                                    strategy, toString(type->second), value));
        m_values[name] = value;
    }
}

std::int64_t StrategyOptions::integer(const std::string& name) const {
    return *parseInteger(m_values.at(name));
}

double StrategyOptions::real(const std::string& name) const {
    return *parseReal(m_values.at(name));
}

bool StrategyOptions::boolean(const std::string& name) const {
    return *parseBool(m_values.at(name));
}

const std::string& StrategyOptions::text(const std::string& name) const {
    return m_values.at(name);
}

std::string StrategyOptions::toJson() const {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [name, value] : m_values) {
        switch (m_types.at(name)) {
        case OptionType::Integer:
            object[name] = integer(name);
            break;
        case OptionType::Real:
            object[name] = real(name);
            break;
        case OptionType::Bool:
            object[name] = boolean(name);
            break;
        case OptionType::String:
            object[name] = value;
            break;
        }
    }
    return object.dump();
}

} // namespace ts
