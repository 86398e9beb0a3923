#pragma once

#include "workload/WorkloadPlan.h"

#include <QString>

// Where the Workload view gets its plans. Free functions: no state, callable from any thread.
namespace ts::gui::workloads {

// The demo: a replay workload over three of the bundled datasets (a heavy pnpoly, gemm, a light
// convolution), each task tuned by the default strategy. The caller sets scheduler, budget and seed.
WorkloadPlan demo();

// A workload file (docs/workloads.md) read by core's WorkloadFile; the caller sets scheduler, budget and
// seed. Throws ts::Error with one sentence naming the file.
WorkloadPlan readFile(const QString& path);

} // namespace ts::gui::workloads
