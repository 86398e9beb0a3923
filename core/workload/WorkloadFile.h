#pragma once

#include "session/SessionPlan.h"
#include "workload/WorkloadDefaults.h"
#include "workload/WorkloadPlan.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ts {

// The workload file (JSON, format: docs/workloads.md): a name, a device and tasks, each a kernel of the
// catalog, a kernel spec or a replay dataset at a size, with a weight (calls per inference).
class WorkloadFile {
public:
    // Bigger files are refused unread: hundreds of tasks take tens of kilobytes.
    static constexpr std::uintmax_t kMaxBytes = 4 * 1024 * 1024;
    static constexpr std::size_t kMaxTasks = 10000;

    // The plan of a workload file, with `defaults` (the command line) applied to every task, every path
    // absolute (a relative one in the file is relative to the file's folder) and every kernel size written
    // out in full by name ("M=128,N=768,K=768"). Checks what is cheap without building anything: types and
    // unknown keys everywhere, one target per task, unique names, that the kernel is in the catalog (or the
    // spec file reads) and has a variant for the device, that the size parses against the spec, that the
    // dataset is a file; then WorkloadPlan::checkTasks(). Whether a task's space has a valid config at its
    // size is the workload run's to find (such a task fails alone). The budget is the command line's
    // (defaults.budget); each task's session budget is that budget (its ceiling; the scheduler decides),
    // or SessionPlan's default when none is given. Throws Error, one sentence naming the file, the task (by
    // number and name) and the key.
    static WorkloadPlan read(const std::filesystem::path& file, const WorkloadDefaults& defaults);

    // The shorthand `tune --kernel K --size A --size B ...`: one task per size, weight 1, named by the kernel
    // and its size in full ("gemm M=512,N=512,K=512"), the workload named "gemm at 2 sizes" and measured on
    // base's backend. Exactly the plan WorkloadFile::read gives for the equivalent file (those tasks, no
    // `defaults`) with defaultsOf(base): base's time limit, patience, target and priors are not carried (a
    // workload's tasks stop by the workload's budget). Throws Error on a size that does not parse, or two
    // sizes that are the same once written in full.
    static WorkloadPlan ofSizes(const SessionPlan& base, const std::vector<std::string>& sizes);

    // What a command line gives a workload file's tasks, taken from one session's plan: backend, strategy and
    // options, space mode, batch size, constraints, transfer, measurement options, seed and budget.
    static WorkloadDefaults defaultsOf(const SessionPlan& base);
};

} // namespace ts
