// TEMPORARY stub (see the header).
#include "workload/SchedulerRegistry.h"

#include "util/Error.h"

namespace ts {

namespace {
class StubRoundRobin : public TaskScheduler {
public:
    std::string name() const override { return "round_robin"; }
    std::optional<std::size_t> next(const std::vector<TaskState>& tasks, std::uint64_t round,
                                    std::int64_t) const override {
        for (std::size_t k = 0; k < tasks.size(); ++k) {
            std::size_t i = (round + k) % tasks.size();
            if (tasks[i].active)
                return i;
        }
        return std::nullopt;
    }
};
} // namespace

const SchedulerRegistry& SchedulerRegistry::builtin() {
    static SchedulerRegistry registry;
    return registry;
}

const SchedulerRegistry::Entry& SchedulerRegistry::entry(const std::string& name) const {
    static Entry e{"round_robin", "", {}};
    if (name != "round_robin" && name != "gradient" && name != "proportional")
        throw Error("unknown scheduler " + name);
    return e;
}

std::unique_ptr<TaskScheduler> SchedulerRegistry::create(const std::string& name,
                                                         const std::map<std::string, std::string>&,
                                                         std::uint64_t) const {
    entry(name);
    return std::make_unique<StubRoundRobin>();
}

std::string SchedulerRegistry::optionsJson(const std::string&,
                                           const std::map<std::string, std::string>&) const {
    return "{}";
}

} // namespace ts
