#include "Commands.h"

#include "workload/SchedulerRegistry.h"

#include <fmt/format.h>

namespace ts::cli {

namespace {

// "int 1 to 100", "float 0 to 1", "true or false".
std::string accepted(const OptionSpec& option) {
    if (option.type == OptionType::Integer || option.type == OptionType::Real)
        return fmt::format("{} {}", toString(option.type), option.allowed());
    return option.allowed();
}

} // namespace

void addSchedulersCommand(CLI::App& app) {
    CLI::App* cmd =
        app.add_subcommand("schedulers", "List the task schedulers of a workload and their options");
    cmd->callback([] {
        const SchedulerRegistry& registry = SchedulerRegistry::builtin();
        for (const std::string& name : registry.names()) {
            const auto& entry = registry.entry(name);
            fmt::print("{}{}\n    {}\n", name, name == SchedulerRegistry::kDefault ? " (default)" : "",
                       entry.description);
            for (const OptionSpec& option : entry.options)
                fmt::print("    --scheduler-option {}=<{}>  default {}: {}\n", option.name, accepted(option),
                           option.defaultValue, option.description);
        }
    });
}

} // namespace ts::cli
