#include "CliSupport.h"
#include "Commands.h"

#include "workload/SchedulerRegistry.h"

#include <fmt/format.h>

namespace ts::cli {

void addSchedulersCommand(CLI::App& app) {
    CLI::App* cmd =
        app.add_subcommand("schedulers", "List the task schedulers of a workload and their options");
    cmd->callback([] {
        const SchedulerRegistry& registry = SchedulerRegistry::builtin();
        for (const std::string& name : registry.names()) {
            const auto& entry = registry.entry(name);
            fmt::print("{}{}\n    {}\n", name, name == SchedulerRegistry::kDefault ? " (default)" : "",
                       entry.description);
            printOptionTable("--scheduler-option", entry.options);
        }
    });
}

} // namespace ts::cli
