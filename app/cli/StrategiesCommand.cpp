#include "CliSupport.h"
#include "Commands.h"

#include "strategies/StrategyRegistry.h"

#include <fmt/format.h>

namespace ts::cli {

void addStrategiesCommand(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("strategies", "List the search strategies and their options");
    cmd->callback([] {
        const StrategyRegistry& registry = StrategyRegistry::builtin();
        for (const std::string& name : registry.names()) {
            const auto& entry = registry.entry(name);
            fmt::print("{}{}\n    {}\n", name, name == registry.defaultName() ? " (default)" : "",
                       entry.description);
            printOptionTable("--option", entry.options);
        }
        fmt::print("default\n    Alias for {}, the recommended strategy.\n", registry.defaultName());
    });
}

} // namespace ts::cli
