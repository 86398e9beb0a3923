// TEMPORARY stub for the lead's build; replaced by the workload-files helper's WorkloadPlan.cpp at merge.
#include "workload/WorkloadPlan.h"

#include "util/Error.h"

namespace ts {

void WorkloadPlan::check() const {
    if (tasks.empty())
        throw Error("no tasks");
}

WorkloadPlan WorkloadPlan::withAbsolutePaths() const {
    WorkloadPlan plan = *this;
    for (WorkloadTaskPlan& task : plan.tasks)
        task.plan = task.plan.withAbsolutePaths();
    return plan;
}

nlohmann::json WorkloadPlan::toJson() const {
    nlohmann::json out{{"name", name},
                       {"backend", backend},
                       {"file", file},
                       {"scheduler", scheduler},
                       {"seed", seed},
                       {"budget", budget},
                       {"tasks", nlohmann::json::array()}};
    out["scheduler_options"] = schedulerOptions;
    for (const WorkloadTaskPlan& task : tasks)
        out["tasks"].push_back({{"name", task.name}, {"weight", task.weight}, {"plan", task.plan.toJson()}});
    return out;
}

WorkloadPlan WorkloadPlan::fromJson(const nlohmann::json& json, const std::string& what) {
    WorkloadPlan plan;
    plan.name = json.value("name", "");
    plan.backend = json.value("backend", "replay");
    plan.file = json.value("file", "");
    plan.scheduler = json.value("scheduler", "gradient");
    plan.seed = json.value("seed", std::uint64_t{0});
    plan.budget = json.value("budget", std::int64_t{0});
    plan.schedulerOptions = json.value("scheduler_options", std::map<std::string, std::string>{});
    for (const auto& task : json.at("tasks"))
        plan.tasks.push_back({task.value("name", ""), task.value("weight", 1.0),
                              SessionPlan::fromJson(task.at("plan"), what)});
    return plan;
}

} // namespace ts
