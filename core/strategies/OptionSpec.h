#pragma once

#include <string>

namespace ts {

enum class OptionType { Integer, Real, Bool, String };

// One row of a strategy's option table: it feeds `tunescope-cli strategies`, the GUI's generated form and
// the validation of user-given options.
struct OptionSpec {
    std::string name;
    OptionType type = OptionType::Integer;
    std::string defaultValue;
    std::string description;
};

const char* toString(OptionType type);

} // namespace ts
