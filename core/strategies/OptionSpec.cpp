#include "strategies/OptionSpec.h"

#include <cstdint>
#include <fmt/format.h>

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

OptionSpec OptionSpec::integer(std::string name, std::string defaultValue, double min, double max,
                               std::string description) {
    return {
        std::move(name), OptionType::Integer, std::move(defaultValue), std::move(description), min, max, {}};
}

OptionSpec OptionSpec::real(std::string name, std::string defaultValue, double min, double max,
                            std::string description) {
    return {std::move(name), OptionType::Real, std::move(defaultValue), std::move(description), min, max, {}};
}

OptionSpec OptionSpec::boolean(std::string name, std::string defaultValue, std::string description) {
    return {std::move(name), OptionType::Bool, std::move(defaultValue), std::move(description), 0.0, 0.0, {}};
}

OptionSpec OptionSpec::choice(std::string name, std::string defaultValue, std::vector<std::string> choices,
                              std::string description) {
    return {std::move(name),   OptionType::String, std::move(defaultValue), std::move(description), 0.0, 0.0,
            std::move(choices)};
}

std::string OptionSpec::allowed() const {
    switch (type) {
    case OptionType::Integer:
        return fmt::format("{} to {}", static_cast<std::int64_t>(min), static_cast<std::int64_t>(max));
    case OptionType::Real:
        return fmt::format("{} to {}", min, max);
    case OptionType::Bool:
        return "true or false";
    case OptionType::String: {
        if (choices.empty())
            return "any text";
        std::string text;
        for (std::size_t i = 0; i < choices.size(); ++i)
            text += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
        return text;
    }
    }
    return "?";
}

} // namespace ts
