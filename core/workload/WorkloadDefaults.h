#pragma once

#include "session/KernelTuneOptions.h"
#include "workload/SearchSettings.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// What the command line supplies to every task of a workload file (WorkloadFile::read, docs/workloads.md).
// The rule is "the command line wins": a field that is set replaces what the file says (its `defaults` and
// its tasks); an unset one leaves the file's choice, else the built-in default of SessionPlan. Front ends set
// an optional field only when the user gave the flag, not from the flag's default.
struct WorkloadDefaults {
    std::optional<std::string> backend; // replaces the file's `device` (cpu, cuda or replay)
    // How every task is searched: a strategy given here replaces the file's, and so do its options (the
    // file's options are for the file's strategy); without one, these options are merged over the file's,
    // name by name. Constraints are added to every task's.
    SearchSettings search;
    // How kernels are measured (timeout, repeat, minimum sample and warm-up time, flush, build cache), for
    // every kernel task; its kernel, kernel spec and size are not used (the tasks say those). A relative
    // cache folder is relative to the working directory, as on the command line.
    KernelTuneOptions measurement;
    // Replay: the wall time (ms) each replayed measurement of every replay task takes, slept, as a real
    // one would (benchmarks of measurement across MPI ranks); 0: none.
    double replayDelayMs = 0.0;
    // The workload's own settings: its seed (also every task's session seed), its budget (trials over all
    // tasks; 0: not given, WorkloadPlan::check refuses it) and how the budget is shared.
    std::uint64_t seed = 0;
    std::int64_t budget = 0;
    std::string scheduler = "gradient";
    std::map<std::string, std::string> schedulerOptions;
};

} // namespace ts
