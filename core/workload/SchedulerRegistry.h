#pragma once
// TEMPORARY stub for the lead's build; replaced by the schedulers helper's SchedulerRegistry at merge.
#include "strategies/OptionSpec.h"
#include "workload/TaskScheduler.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ts {

class SchedulerRegistry {
public:
    struct Entry {
        std::string name;
        std::string description;
        std::vector<OptionSpec> options;
    };
    static const SchedulerRegistry& builtin();
    const Entry& entry(const std::string& name) const;
    std::unique_ptr<TaskScheduler> create(const std::string& name,
                                          const std::map<std::string, std::string>& options,
                                          std::uint64_t seed) const;
    std::string optionsJson(const std::string& name, const std::map<std::string, std::string>& options) const;
};

} // namespace ts
