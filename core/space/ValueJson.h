#pragma once

#include "space/Value.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>

namespace ts {

// The one conversion between JSON and a parameter Value, for every reader and writer of config values (spec
// files, T1 files, stored trials, the window). Works on nlohmann::json and nlohmann::ordered_json alike.
//
// JSON -> Value: a boolean is a bool; an integer that int64 holds is an int64; any other number (a float,
// or an unsigned integer beyond int64) is a double; a string is a string. Anything else (null, an array, an
// object) is no Value: nullopt, and a reader that must reject it says so in its own words.
template <typename Json> std::optional<Value> valueFromJson(const Json& json) {
    if (json.is_boolean())
        return json.template get<bool>();
    if (json.is_number_unsigned() && json.template get<std::uint64_t>() >
                                         static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return json.template get<double>();
    if (json.is_number_integer())
        return json.template get<std::int64_t>();
    if (json.is_number())
        return json.template get<double>();
    if (json.is_string())
        return json.template get<std::string>();
    return std::nullopt;
}

// For showing records written by someone else: a JSON value that is no Value becomes its JSON text.
template <typename Json> Value valueOrJsonText(const Json& json) {
    std::optional<Value> value = valueFromJson(json);
    return value ? std::move(*value) : Value(json.dump());
}

// Value -> JSON: the alternative as it is; a double that is NaN or infinite is dumped as null (JSON has
// neither), which valueFromJson does not take back.
template <typename Json = nlohmann::json> Json valueToJson(const Value& value) {
    return std::visit([](const auto& alternative) { return Json(alternative); }, value);
}

} // namespace ts
