#include "Commands.h"

#include "strategies/StrategyRegistry.h"

#include <fmt/format.h>

namespace ts::cli {

namespace {

// "int 1 to 40", "float 0 to 1", "true or false", "Hamming or adjacent".
std::string accepted(const OptionSpec& option) {
    if (option.type == OptionType::Integer || option.type == OptionType::Real)
        return fmt::format("{} {}", toString(option.type), option.allowed());
    return option.allowed();
}

} // namespace

void addStrategiesCommand(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("strategies", "List the search strategies and their options");
    cmd->callback([] {
        const StrategyRegistry& registry = StrategyRegistry::builtin();
        for (const std::string& name : registry.names()) {
            const auto& entry = registry.entry(name);
            fmt::print("{}{}\n    {}\n", name, name == registry.defaultName() ? " (default)" : "",
                       entry.description);
            for (const OptionSpec& option : entry.options)
                fmt::print("    --option {}=<{}>  default {}: {}\n", option.name, accepted(option),
                           option.defaultValue, option.description);
        }
        fmt::print("default\n    Alias for {}, the recommended strategy.\n", registry.defaultName());
    });
}

} // namespace ts::cli
