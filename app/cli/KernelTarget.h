#pragma once

#include "session/KernelSessionTarget.h"
#include "session/KernelTuneOptions.h"
#include "session/TuningSession.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace ts::cli {

// `tune --kernel/--kernel-spec ...`: core's KernelTuneOptions and the plan's backend on the command line.
// --size may be given more than once (`sizes`): several sizes of the kernel are tuned as a workload.
void addKernelOptions(CLI::App& command, KernelTuneOptions& options, std::vector<std::string>& sizes,
                      std::string& backend);
// The measurement flags alone (timeout, repeat, minimum sample and warm-up time, flush, build cache).
void addMeasurementOptions(CLI::App& command, KernelTuneOptions& options);

// The result of a `tune` session of a kernel measured for real, printed from core's target.
class KernelTarget {
public:
    explicit KernelTarget(const KernelSessionTarget& target) : m_target(target) {}

    // The best trial, statuses, build cache figures and the strategy's learned restrictions, as text on
    // stdout or into the JSON result.
    void printResult(const TuningSession& session, std::int64_t sessionId, const std::string& strategy,
                     const std::string& stopReason, const std::vector<std::string>& restrictions,
                     bool json) const;

private:
    const KernelSessionTarget& m_target;
};

} // namespace ts::cli
