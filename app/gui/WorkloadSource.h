#pragma once

#include "workload/WorkloadPlan.h"

#include <QString>

// Where the Workload view gets its plans. Free functions: no state, callable from any thread.
namespace ts::gui::workloads {

// The demo: a replay workload over three of the bundled datasets (a heavy pnpoly, gemm, a light
// convolution), each task tuned by the default strategy. The caller sets scheduler, budget and seed.
WorkloadPlan demo();

// A workload read from a file. Throws ts::Error with one sentence naming the file.
// TODO(lead, at merge): read it with core's WorkloadFile (docs/workloads.md); today this reads the plan's
// own JSON (WorkloadPlan::toJson), which is also what a workload record stores.
WorkloadPlan readFile(const QString& path);

} // namespace ts::gui::workloads
