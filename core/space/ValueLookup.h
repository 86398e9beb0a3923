#pragma once

#include "space/Parameter.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ts {

// Finds where a value read from a dataset sits in a parameter's value list. Numbers match numerically
// (a key's "16" matches 16.0 in tune_params), booleans match 0/1 and Python's True/False.
class ValueLookup {
public:
    explicit ValueLookup(const Parameter& parameter);

    std::optional<std::uint32_t> find(const nlohmann::ordered_json& value) const;
    // A value as it is written in a Kernel Tuner cache key.
    std::optional<std::uint32_t> findText(std::string_view text) const;

private:
    std::optional<std::uint32_t> findNumber(double number) const;

    std::vector<std::pair<double, std::uint32_t>> m_numbers; // sorted by number
    std::unordered_map<std::string, std::uint32_t> m_strings;
};

} // namespace ts
