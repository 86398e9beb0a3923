#include "strategies/StrategyOptions.h"

#include "util/Error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>

namespace ts {

namespace {

// Longer values are shortened in messages: the value is the user's, its length unbounded.
constexpr std::size_t kShownLength = 60;

std::string shown(const std::string& text) {
    return text.size() <= kShownLength ? text : text.substr(0, kShownLength) + "...";
}

// "Strategy" for "strategy": the kind opens a sentence.
std::string capitalized(std::string_view kind) {
    std::string text(kind);
    if (!text.empty() && text[0] >= 'a' && text[0] <= 'z')
        text[0] = static_cast<char>(text[0] - 'a' + 'A');
    return text;
}

enum class Parsed { Ok, NotANumber, OutOfRange };

Parsed parseInteger(const std::string& text, std::int64_t& value) {
    const char* first = text.data();
    const char* last = text.data() + text.size();
    auto [end, error] = std::from_chars(first, last, value);
    if (end != last)
        return Parsed::NotANumber;
    if (error == std::errc::result_out_of_range)
        return Parsed::OutOfRange;
    return error == std::errc() ? Parsed::Ok : Parsed::NotANumber;
}

// A decimal or scientific number, "inf" and "nan" included (the range check rejects them).
Parsed parseReal(const std::string& text, double& value) {
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (first != last && *first == '+')
        ++first;
    auto [end, error] = std::from_chars(first, last, value);
    if (end != last || first == last)
        return Parsed::NotANumber;
    if (error == std::errc::result_out_of_range)
        return Parsed::OutOfRange;
    return error == std::errc() ? Parsed::Ok : Parsed::NotANumber;
}

std::optional<bool> parseBool(const std::string& text) {
    if (text == "true" || text == "True" || text == "1" || text == "yes" || text == "on")
        return true;
    if (text == "false" || text == "False" || text == "0" || text == "no" || text == "off")
        return false;
    return std::nullopt;
}

// Why `value` is not acceptable for `spec` (a clause for "is VALUE, ..."), or nullopt when it is.
std::optional<std::string> problemWith(const OptionSpec& spec, const std::string& value) {
    const std::string outside = fmt::format("outside its range {}", spec.allowed());
    switch (spec.type) {
    case OptionType::Integer: {
        std::int64_t number = 0;
        Parsed parsed = parseInteger(value, number);
        if (parsed == Parsed::NotANumber)
            return fmt::format("not an integer (its range: {})", spec.allowed());
        if (parsed == Parsed::OutOfRange || static_cast<double>(number) < spec.min ||
            static_cast<double>(number) > spec.max)
            return outside;
        return std::nullopt;
    }
    case OptionType::Real: {
        double number = 0.0;
        Parsed parsed = parseReal(value, number);
        if (parsed == Parsed::NotANumber)
            return fmt::format("not a number (its range: {})", spec.allowed());
        // NaN fails both comparisons, so it is tested for explicitly.
        if (parsed == Parsed::OutOfRange || !std::isfinite(number) || number < spec.min || number > spec.max)
            return outside;
        return std::nullopt;
    }
    case OptionType::Bool:
        if (!parseBool(value))
            return std::string("not true or false");
        return std::nullopt;
    case OptionType::String:
        if (!spec.choices.empty() &&
            std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end())
            return fmt::format("not one of {}", spec.allowed());
        return std::nullopt;
    }
    return std::string("of an unknown type");
}

} // namespace

StrategyOptions::StrategyOptions(const std::string& strategy, const std::vector<OptionSpec>& table,
                                 const std::map<std::string, std::string>& given, std::string_view kind) {
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
            throw Error(fmt::format("{} \"{}\" has no option \"{}\" (its options: {}).", capitalized(kind),
                                    strategy, name, known.empty() ? "none" : known));
        }
        const OptionSpec& spec = *std::find_if(
            table.begin(), table.end(), [&](const OptionSpec& row) { return row.name == type->first; });
        if (auto problem = problemWith(spec, value))
            throw Error(fmt::format("Option \"{}\" of {} \"{}\" is \"{}\", {}.", name, kind, strategy,
                                    shown(value), *problem));
        m_values[name] = value;
    }
}

std::int64_t StrategyOptions::integer(const std::string& name) const {
    std::int64_t value = 0;
    parseInteger(m_values.at(name), value);
    return value;
}

double StrategyOptions::real(const std::string& name) const {
    double value = 0.0;
    parseReal(m_values.at(name), value);
    return value;
}

bool StrategyOptions::boolean(const std::string& name) const {
    return *parseBool(m_values.at(name));
}

bool StrategyOptions::isOn(const std::string& name) const {
    auto it = m_values.find(name);
    auto type = m_types.find(name);
    return it != m_values.end() && type != m_types.end() && type->second == OptionType::Bool &&
           parseBool(it->second).value_or(false);
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
