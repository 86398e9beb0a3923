#include "workload/WorkloadPlan.h"

#include "util/Error.h"
#include "util/JsonField.h"

#include <cctype>
#include <cmath>
#include <fmt/format.h>

namespace ts {

namespace {

// "task 3 (\"ffn.up\")": how a task is named in every sentence about it (numbered from 1, as in the file).
std::string taskLabel(std::size_t index, const std::string& name) {
    return name.empty() ? fmt::format("task {}", index + 1)
                        : fmt::format("task {} (\"{}\")", index + 1, name);
}

std::string capitalized(std::string text) {
    if (!text.empty())
        text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    return text;
}

// Scheduler options are stored typed when they were numbers (as strategy options are); taken back as text.
std::map<std::string, std::string> textOptions(const nlohmann::json& json, const char* key,
                                               const std::string& what) {
    std::map<std::string, std::string> options;
    const auto it = json.find(key);
    if (it == json.end() || it->is_null())
        return options;
    if (!it->is_object())
        throw Error(fmt::format("The {} has \"{}\": {}, which is not an object.", what, key,
                                it->dump().substr(0, 60)));
    for (const auto& [name, value] : it->items()) {
        if (value.is_object() || value.is_array())
            throw Error(fmt::format("The {} has \"{}.{}\": {}, which is not a single value.", what, key, name,
                                    value.dump().substr(0, 60)));
        options[name] = value.is_string() ? value.get<std::string>() : value.dump();
    }
    return options;
}

} // namespace

void WorkloadPlan::checkTasks() const {
    if (backend != "replay" && backend != "cpu" && backend != "cuda")
        throw Error(fmt::format("The workload's backend \"{}\" is not one of replay, cpu or cuda.", backend));
    if (tasks.empty())
        throw Error(fmt::format("The workload \"{}\" has no task.", name));
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const WorkloadTaskPlan& task = tasks[i];
        const std::string label = capitalized(taskLabel(i, task.name));
        if (task.name.empty())
            throw Error(fmt::format("{} has no name.", label));
        for (std::size_t j = 0; j < i; ++j)
            if (tasks[j].name == task.name)
                throw Error(
                    fmt::format("{} has the same name as task {}: task names must be unique.", label, j + 1));
        if (!std::isfinite(task.weight) || task.weight < 0)
            throw Error(fmt::format("{} has weight {}, which is not a finite number of 0 or more.", label,
                                    task.weight));
        if (task.plan.backend != backend)
            throw Error(fmt::format("{} is measured on {}, not on the workload's backend {}.", label,
                                    task.plan.backend, backend));
        try {
            task.plan.check();
        } catch (const Error& e) {
            throw Error(fmt::format("{}: {}", label, e.what()));
        }
    }
}

void WorkloadPlan::check() const {
    checkTasks();
    std::int64_t weighted = 0;
    for (const WorkloadTaskPlan& task : tasks)
        weighted += task.weight > 0 ? 1 : 0;
    if (budget < weighted)
        throw Error(fmt::format("The budget {} is below the {} tasks of positive weight: each needs at least "
                                "one trial.",
                                budget, weighted));
}

WorkloadPlan WorkloadPlan::withAbsolutePaths() const {
    WorkloadPlan plan = *this;
    for (WorkloadTaskPlan& task : plan.tasks)
        task.plan = task.plan.withAbsolutePaths();
    return plan;
}

nlohmann::json WorkloadPlan::toJson() const {
    nlohmann::json list = nlohmann::json::array();
    for (const WorkloadTaskPlan& task : tasks)
        list.push_back({{"name", task.name}, {"weight", task.weight}, {"plan", task.plan.toJson()}});
    return {{"name", name},     {"backend", backend},     {"file", file},
            {"source", source}, {"scheduler", scheduler}, {"scheduler_options", schedulerOptions},
            {"seed", seed},     {"budget", budget},       {"tasks", list}};
}

WorkloadPlan WorkloadPlan::fromJson(const nlohmann::json& j, const std::string& what) {
    if (!j.is_object())
        throw Error(fmt::format("The {} is not a JSON object.", what));
    WorkloadPlan p;
    p.name = jsonField<std::string>(j, "name", "", what);
    p.backend = jsonField<std::string>(j, "backend", p.backend, what);
    p.file = jsonField<std::string>(j, "file", "", what);
    p.source = jsonField<std::string>(j, "source", "", what);
    p.scheduler = jsonField<std::string>(j, "scheduler", p.scheduler, what);
    p.schedulerOptions = textOptions(j, "scheduler_options", what);
    p.seed = jsonField<std::uint64_t>(j, "seed", 0, what);
    p.budget = jsonField<std::int64_t>(j, "budget", 0, what);
    const auto list = j.find("tasks");
    if (list != j.end() && !list->is_null()) {
        if (!list->is_array())
            throw Error(fmt::format("The {} has \"tasks\": {}, which is not an array.", what,
                                    list->dump().substr(0, 60)));
        for (std::size_t i = 0; i < list->size(); ++i) {
            const nlohmann::json& item = (*list)[i];
            const std::string taskWhat = fmt::format("{}, task {}", what, i + 1);
            if (!item.is_object())
                throw Error(fmt::format("The {} is not a JSON object.", taskWhat));
            WorkloadTaskPlan task;
            task.name = jsonField<std::string>(item, "name", "", taskWhat);
            task.weight = jsonField<double>(item, "weight", task.weight, taskWhat);
            task.plan = SessionPlan::fromJson(item.value("plan", nlohmann::json::object()), taskWhat);
            p.tasks.push_back(std::move(task));
        }
    }
    return p;
}

} // namespace ts
