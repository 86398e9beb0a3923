#pragma once

#include "records/RecordStore.h"
#include "workload/WorkloadRun.h"

#include <cstdint>

namespace ts::cli {

// `workload tune`, `workload resume` and `tune --size A --size B`: runs a prepared workload with a progress
// line on stderr (total trials, end-to-end estimate, the task being tuned) and Ctrl-C stopping it between
// rounds, then prints its table. A signal ends the command with Interrupted once everything is saved.
void runWorkload(WorkloadRun& run, RecordStore& store, bool json);

// `workload show`: per task its weight, trials, best time and share of the end-to-end latency, from the
// records. Throws Error when the workload is not in the store.
void printWorkload(const RecordStore& store, std::int64_t id, bool json);

} // namespace ts::cli
