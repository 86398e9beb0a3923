#include "workload/SchedulerRegistry.h"

#include "util/Error.h"
#include "workload/GradientScheduler.h"
#include "workload/ProportionalScheduler.h"
#include "workload/RoundRobinScheduler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ts {

const SchedulerRegistry& SchedulerRegistry::builtin() {
    static const SchedulerRegistry registry = [] {
        SchedulerRegistry r;
        r.add(
            {RoundRobinScheduler::kName,
             "The tasks take rounds in turn, whatever their weight (MetaSchedule's round robin); a task of "
             "weight 0 takes none.",
             {},
             [](const StrategyOptions&, std::uint64_t) { return std::make_unique<RoundRobinScheduler>(); }});
        r.add(
            {ProportionalScheduler::kName,
             "Each task gets total x weight / sum(weights) of the trials: the task furthest below its share "
             "takes the next round; a failed or exhausted task's share goes to the others.",
             {},
             [](const StrategyOptions&, std::uint64_t) {
                 return std::make_unique<ProportionalScheduler>();
             }});
        r.add({GradientScheduler::kName,
               "Ansor's task scheduler: the next round goes to the task whose trials are expected to lower "
               "the weighted end-to-end latency the most (recent improvement, optimistic guess, similar-task "
               "credit; per trial by default, per round as in Ansor), with epsilon-greedy exploration.",
               GradientScheduler::optionTable(), [](const StrategyOptions& options, std::uint64_t seed) {
                   return std::make_unique<GradientScheduler>(options, seed);
               }});
        return r;
    }();
    return registry;
}

void SchedulerRegistry::add(Entry entry) {
    std::string name = entry.name;
    m_entries[name] = std::move(entry);
}

std::vector<std::string> SchedulerRegistry::names() const {
    std::vector<std::string> result;
    for (const auto& [name, entry] : m_entries)
        result.push_back(name);
    return result;
}

const SchedulerRegistry::Entry& SchedulerRegistry::entry(const std::string& name) const {
    auto it = m_entries.find(name);
    if (it == m_entries.end())
        throw Error(fmt::format("Unknown scheduler \"{}\" (known: {}).", name, fmt::join(names(), ", ")));
    return it->second;
}

StrategyOptions SchedulerRegistry::options(const std::string& name,
                                           const std::map<std::string, std::string>& given) const {
    const Entry& e = entry(name);
    return StrategyOptions(e.name, e.options, given, "scheduler");
}

std::string SchedulerRegistry::optionsJson(const std::string& name,
                                           const std::map<std::string, std::string>& given) const {
    return options(name, given).toJson();
}

std::unique_ptr<TaskScheduler> SchedulerRegistry::create(const std::string& name,
                                                         const std::map<std::string, std::string>& given,
                                                         std::uint64_t seed) const {
    return entry(name).create(options(name, given), seed);
}

} // namespace ts
