#pragma once

#include "space/Value.h"

#include <string>
#include <vector>

namespace ts {

enum class ParameterType { Integer, Real, String, Bool };

// A tunable parameter: a name and its ordered list of values. "Ordered" means neighbouring values in the
// list are one step apart (used by the adjacent neighbourhood).
struct Parameter {
    std::string name;
    ParameterType type = ParameterType::Integer;
    std::vector<Value> values;
};

const char* toString(ParameterType type);

} // namespace ts
