#pragma once

#include "backends/Backend.h"
#include "backends/CpuBackend.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpec.h"
#include "store/SessionRecord.h"
#include "session/SessionPlan.h"

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ts {

// The target of a plan that measures a kernel for real: the spec, its space at the size narrowed by the
// plan's constraints, and the backend that builds and measures (cpu, or cuda through makeCudaBackend).
// Built by PreparedSession (on the window's worker thread: building the backend compiles the reference).
// Throws Error (one sentence) on a bad kernel, size, constraint or backend, a missing worker or a reference
// that does not compile.
class KernelSessionTarget {
public:
    explicit KernelSessionTarget(const SessionPlan& plan);

    const KernelTuneOptions& options() const { return m_options; }
    const std::string& backendName() const { return m_backendName; }
    const KernelSpec& spec() const { return m_spec; }
    const ProblemSize& size() const { return m_size; }
    const KernelSpace& kernelSpace() const { return *m_kernelSpace; }
    const SearchSpace& space() const { return m_space; }
    Backend& backend() { return *m_backend; }
    const Backend& backend() const { return *m_backend; }
    // The backend when it measures on the CPU (build cache figures); null otherwise.
    const CpuBackend* cpuBackend() const { return m_cpu; }
    const std::filesystem::path& source() const { return m_kernelSpace->variant().source; }

    // Fills the kernel, problem, device, backend, source hash and device fields of a new session record.
    void describe(SessionRecord& record) const;
    // The variant's default config as a JSON object {parameter: value}: stored in the session's settings as
    // "default_config", the deployment lookup's last rule.
    nlohmann::json defaultConfig() const;

private:
    KernelTuneOptions m_options;
    std::string m_backendName;
    KernelSpec m_spec;
    ProblemSize m_size;
    std::unique_ptr<KernelSpace> m_kernelSpace;
    SearchSpace m_space;
    std::unique_ptr<Backend> m_backend;
    CpuBackend* m_cpu = nullptr; // m_backend when it measures on the CPU
};

} // namespace ts
