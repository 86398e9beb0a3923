#pragma once

#include "session/KernelSessionTarget.h"
#include "session/KernelTuneOptions.h"
#include "session/TuningSession.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace ts::cli {

// `tune --kernel/--kernel-spec ...`: core's KernelTuneOptions on the command line.
void addKernelOptions(CLI::App& command, KernelTuneOptions& options);

// The CLI's side of core's KernelSessionTarget: the same target, plus the result printed for `tune`.
class KernelTarget {
public:
    KernelTarget(const KernelTuneOptions& options, const std::vector<std::string>& constraints)
        : m_target(options, constraints) {}

    const KernelSpec& spec() const { return m_target.spec(); }
    const SearchSpace& space() const { return m_target.space(); }
    Backend& backend() { return m_target.backend(); }
    const std::filesystem::path& source() const { return m_target.source(); }
    void describe(SessionRecord& record) const { m_target.describe(record); }
    nlohmann::json defaultConfig() const { return m_target.defaultConfig(); }

    // The best trial, statuses, build cache figures and the strategy's learned restrictions, as text on
    // stdout or into the JSON result.
    void printResult(const TuningSession& session, std::int64_t sessionId, const std::string& strategy,
                     const std::string& stopReason, const std::vector<std::string>& restrictions,
                     bool json) const;

private:
    KernelSessionTarget m_target;
};

} // namespace ts::cli
