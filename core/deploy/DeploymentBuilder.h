#pragma once

#include "store/RecordStore.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// Builds the deployment JSON (docs/runtime.md): per (kernel, problem size, device) the best measured config
// of the chosen sessions with its statistics, metrics and provenance (kernel source hash, tool version,
// device fingerprint, date, strategy, number of evaluations). tunescope/runtime.h reads it back.
class DeploymentBuilder {
public:
    explicit DeploymentBuilder(const RecordStore& store) : m_store(store) {}

    // All sessions, or only `session` (Error when it is not in the store). Groups without an Ok trial are
    // left out and named in skipped().
    nlohmann::ordered_json build(std::optional<std::int64_t> session = std::nullopt);
    // These sessions (a workload's tasks); Error naming the first that is not in the store.
    nlohmann::ordered_json build(const std::vector<std::int64_t>& sessions);

    // "kernel on device" of the groups build() left out because none of their trials succeeded.
    const std::vector<std::string>& skipped() const { return m_skipped; }
    // Sentences (starting in lower case, after "warning: ") about constraints the deployment cannot check (a
    // rule tunescope/runtime.h does not read, a kernel spec that is gone): nearest-shape answers for those
    // entries are not checked against them.
    const std::vector<std::string>& warnings() const { return m_warnings; }

    // A session's problem size as the deployment writes it: a list of integers (a number becomes a
    // one-element list, an object of named sizes its values in order); empty when it has none.
    static nlohmann::ordered_json problemShape(const std::string& problem);
    // ISO 8601 UTC ("2026-11-29T11:02:03Z") of a unix time.
    static std::string isoDate(double unixSeconds);

    // The key of a session's settings that holds the kernel variant's constraints, over problem-size and
    // parameter names (PreparedSession stores them when the session is recorded).
    static constexpr const char* kKernelConstraintsKey = "kernel_constraints";

private:
    nlohmann::ordered_json buildFrom(std::vector<SessionRecord> sessions);

    const RecordStore& m_store;
    std::vector<std::string> m_skipped;
    std::vector<std::string> m_warnings;
};

} // namespace ts
