#pragma once

#include "strategies/OptionSpec.h"
#include "strategies/StrategyOptions.h"
#include "workload/TaskScheduler.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ts {

// The task schedulers by name, each with its option table (`tunescope-cli schedulers`, the workload's
// --scheduler and --scheduler-option, the GUI's form).
class SchedulerRegistry {
public:
    struct Entry {
        std::string name;
        std::string description;
        std::vector<OptionSpec> options;
        // `options` validated against the entry's table.
        std::function<std::unique_ptr<TaskScheduler>(const StrategyOptions& options, std::uint64_t seed)>
            create;
    };

    static constexpr const char* kDefault = "gradient";

    // The built-in schedulers.
    static const SchedulerRegistry& builtin();

    void add(Entry entry);

    // Registered names in alphabetical order.
    std::vector<std::string> names() const;
    // Throws Error naming the unknown scheduler and the known ones.
    const Entry& entry(const std::string& name) const;
    // The user's option values checked against the scheduler's table, defaults filled; throws Error, one
    // sentence naming the scheduler, the option, the value and what it accepts (StrategyOptions).
    StrategyOptions options(const std::string& name, const std::map<std::string, std::string>& given) const;
    // The options as the records store them: a JSON object text, every option typed, defaults included.
    std::string optionsJson(const std::string& name, const std::map<std::string, std::string>& given) const;
    // A scheduler with its options checked as options() does.
    std::unique_ptr<TaskScheduler> create(const std::string& name,
                                          const std::map<std::string, std::string>& given,
                                          std::uint64_t seed) const;

private:
    std::map<std::string, Entry> m_entries;
};

} // namespace ts
