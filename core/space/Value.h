#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace ts {

// One parameter value. Booleans are kept apart from integers so they print as Python does (True/False).
using Value = std::variant<bool, std::int64_t, double, std::string>;

// Python's str() of the value: 16, 1.5, True, abc. Used for Kernel Tuner cache keys and display.
std::string toString(const Value& value);

// Numeric view of a value (bool -> 0/1); strings have none and throw.
double toNumber(const Value& value);

bool isNumeric(const Value& value);

} // namespace ts

#include <vector>

namespace ts {

// A configuration: one value per parameter of its space, in the space's parameter order.
using Config = std::vector<Value>;

} // namespace ts
