#include "space/ValueLookup.h"

#include <algorithm>
#include <charconv>
#include <variant>

namespace ts {

ValueLookup::ValueLookup(const Parameter& parameter) {
    for (std::uint32_t position = 0; position < parameter.values.size(); ++position) {
        const Value& value = parameter.values[position];
        if (const auto* text = std::get_if<std::string>(&value)) {
            m_strings.emplace(*text, position);
            continue;
        }
        m_numbers.emplace_back(toNumber(value), position);
        if (const auto* flag = std::get_if<bool>(&value)) {
            m_strings.emplace(*flag ? "True" : "False", position);
            m_strings.emplace(*flag ? "true" : "false", position);
        }
    }
    // Stable so that the first of two numerically equal values wins.
    std::stable_sort(m_numbers.begin(), m_numbers.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
}

std::optional<std::uint32_t> ValueLookup::findNumber(double number) const {
    const auto it = std::lower_bound(m_numbers.begin(), m_numbers.end(), number,
                                     [](const auto& entry, double x) { return entry.first < x; });
    if (it != m_numbers.end() && it->first == number) {
        return it->second;
    }
    return std::nullopt;
}

std::optional<std::uint32_t> ValueLookup::find(const nlohmann::ordered_json& value) const {
    std::optional<std::uint32_t> position;
    switch (value.type()) {
    case nlohmann::ordered_json::value_t::number_integer:
        position = findNumber(static_cast<double>(value.get<std::int64_t>()));
        break;
    case nlohmann::ordered_json::value_t::number_unsigned:
        position = findNumber(static_cast<double>(value.get<std::uint64_t>()));
        break;
    case nlohmann::ordered_json::value_t::number_float:
        position = findNumber(value.get<double>());
        break;
    case nlohmann::ordered_json::value_t::boolean:
        return findText(value.get<bool>() ? "True" : "False");
    case nlohmann::ordered_json::value_t::string:
        return findText(value.get_ref<const std::string&>());
    default:
        return std::nullopt;
    }
    // A parameter of mixed types holds its values as text.
    if (!position && !m_strings.empty()) {
        return findText(value.dump());
    }
    return position;
}

std::optional<std::uint32_t> ValueLookup::findText(std::string_view text) const {
    if (!m_strings.empty()) {
        const auto it = m_strings.find(std::string(text));
        if (it != m_strings.end()) {
            return it->second;
        }
    }
    if (m_numbers.empty()) {
        return std::nullopt;
    }
    while (!text.empty() && text.front() == ' ') {
        text.remove_prefix(1);
    }
    if (text == "True" || text == "true") {
        return findNumber(1.0);
    }
    if (text == "False" || text == "false") {
        return findNumber(0.0);
    }
    double number = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return findNumber(number);
}

} // namespace ts
