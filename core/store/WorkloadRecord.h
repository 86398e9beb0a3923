#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// One task of a workload as stored: its place in the workload file, its weight (calls per inference) and the
// tuning session that measures it, once it has one.
struct WorkloadTaskRecord {
    int position = 0;
    std::string name;
    double weight = 1.0;
    std::optional<std::int64_t> session;
    std::string status = "pending"; // pending, tuning, done, failed
    std::string error;              // why it failed: one sentence
    // What the task's strategy expected its next trial to gain (ms below its best) after its last round;
    // none for strategies without a model or before their first ranking.
    std::optional<double> expectedGain;
};

// A workload (many operators and shapes tuned within one budget) as stored in the records database: it
// groups the sessions of its tasks.
struct WorkloadRecord {
    std::int64_t id = 0;
    std::string name;
    std::string device;    // the backend's device fingerprint
    std::string scheduler; // registry name
    std::string options;   // JSON object text: the scheduler's options, every one filled
    std::uint64_t seed = 0;
    std::int64_t budget = 0; // trials over all tasks
    std::string plan;        // JSON object text: the workload plan (WorkloadPlan::toJson)
    std::string toolVersion;
    double startedAt = 0.0;
    std::optional<double> endedAt;
    std::string status = "running"; // running, completed, cancelled, failed
    std::vector<WorkloadTaskRecord> tasks;
};

} // namespace ts
