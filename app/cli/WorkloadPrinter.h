#pragma once

#include "MpiJob.h"

#include "store/RecordStore.h"
#include "workload/WorkloadRun.h"

#include <cstdint>

namespace ts::cli {

// `workload tune`, `workload resume` and `tune --size A --size B`: runs a prepared workload with a progress
// line on stderr (total trials, end-to-end estimate, the task being tuned) and Ctrl-C stopping it between
// rounds, then prints its table. A signal ends the command with Interrupted once everything is saved. With
// --mpi (on rank 0 of the job) its batches are measured by the other ranks; a lost rank ends it with the
// sentence that says which and how to resume.
void runWorkload(WorkloadRun& run, RecordStore& store, bool json, MpiJob& mpi);

// `workload show`: per task its weight, trials, best time and share of the end-to-end latency, from the
// records. Throws Error when the workload is not in the store.
void printWorkload(const RecordStore& store, std::int64_t id, bool json);

} // namespace ts::cli
