#pragma once

#include "strategies/OptionSpec.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

// Option values of one strategy, validated against its option table: every option has a value (the
// default unless the user gave one); unknown names, values of the wrong type and values outside the row's
// range or choices are rejected. The one place option values are checked: the registry builds these from
// the user's text and StrategyBase::reset builds them again from the context, before the first trial.
class StrategyOptions {
public:
    StrategyOptions() = default;
    // Throws Error, one sentence naming the strategy, the option, the value and what the option accepts,
    // when a name is unknown or a value does not parse or lies outside the table's range or choices.
    // `kind` names what owns the table in that sentence ("strategy", "scheduler"), in lower case.
    StrategyOptions(const std::string& strategy, const std::vector<OptionSpec>& table,
                    const std::map<std::string, std::string>& given, std::string_view kind = "strategy");

    std::int64_t integer(const std::string& name) const;
    double real(const std::string& name) const;
    bool boolean(const std::string& name) const;
    // True when the strategy has the boolean option `name` and it is on (false for strategies without it).
    bool isOn(const std::string& name) const;
    const std::string& text(const std::string& name) const;

    const std::map<std::string, std::string>& values() const { return m_values; }
    // The values as a JSON object text, typed per the table (for the records database).
    std::string toJson() const;

private:
    std::map<std::string, std::string> m_values;
    std::map<std::string, OptionType> m_types;
};

} // namespace ts
