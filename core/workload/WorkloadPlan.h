#pragma once

#include "session/SessionPlan.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// One task of a workload: an operator at one shape, tuned by a session of its own.
struct WorkloadTaskPlan {
    std::string name;  // unique in the workload ("layer.qkv"); names the task in tables and messages
    double weight = 1; // how often the operator runs per inference (>= 0; 0: kept at its default config)
    // The task's session: what is tuned (dataset, or kernel with its size) and how. Its budget is set by the
    // workload (the task gets what the scheduler gives it).
    SessionPlan plan;
};

// A workload: many operators and shapes tuned within one budget on one device, shipped as one deployment
// (AutoTVM/Ansor's extracted tasks). Read from a workload file (WorkloadFile, docs/workloads.md) or built by
// `tune --kernel K --size A --size B`; stored with the workload record (WorkloadRecord::plan).
struct WorkloadPlan {
    std::string name;
    std::string backend = "replay"; // where every task is measured: replay, cpu or cuda
    std::string file;               // the workload file it was read from (absolute), empty when built
    std::string source;             // where the tasks' shapes come from (free text), empty when not said
    std::vector<WorkloadTaskPlan> tasks;
    // How the budget is shared among the tasks.
    std::string scheduler = "gradient";
    std::map<std::string, std::string> schedulerOptions;
    std::uint64_t seed = 0;
    std::int64_t budget = 0; // trials over all tasks

    // Throws Error, one sentence naming the field (and the task by number and name), on a plan that cannot
    // run: no task, duplicate names, a weight that is negative or not finite, a budget below the number of
    // tasks of positive weight, a task whose backend is not the workload's, a task's own plan check().
    void check() const;
    // check() without the budget: what a workload file alone must get right (WorkloadFile::read calls it,
    // before the command line has given a budget).
    void checkTasks() const;
    // Every task's files absolute (SessionPlan::withAbsolutePaths).
    WorkloadPlan withAbsolutePaths() const;

    nlohmann::json toJson() const;
    // Throws Error naming `what` and the key on a value of the wrong type.
    static WorkloadPlan fromJson(const nlohmann::json& json, const std::string& what);
};

} // namespace ts
