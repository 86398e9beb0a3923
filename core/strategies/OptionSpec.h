#pragma once

#include <string>
#include <vector>

namespace ts {

enum class OptionType { Integer, Real, Bool, String };

// One row of a strategy's option table: it feeds `tunescope-cli strategies`, the GUI's generated form and
// the validation of user-given options (StrategyOptions), which holds every value to the row's range or
// choices before the first trial.
struct OptionSpec {
    std::string name;
    OptionType type = OptionType::Integer;
    std::string defaultValue;
    std::string description;
    // Inclusive bounds of an Integer or Real value (whole numbers for an Integer); a Real must be finite.
    double min = 0.0;
    double max = 0.0;
    // The values a String option accepts.
    std::vector<std::string> choices;

    static OptionSpec integer(std::string name, std::string defaultValue, double min, double max,
                              std::string description);
    static OptionSpec real(std::string name, std::string defaultValue, double min, double max,
                           std::string description);
    static OptionSpec boolean(std::string name, std::string defaultValue, std::string description);
    static OptionSpec choice(std::string name, std::string defaultValue, std::vector<std::string> choices,
                             std::string description);

    // What the option accepts, for messages and listings: "1 to 40", "0 to 1", "true or false",
    // "uniform, single_point or two_point".
    std::string allowed() const;
};

const char* toString(OptionType type);

} // namespace ts
