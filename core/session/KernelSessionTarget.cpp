#include "session/KernelSessionTarget.h"

#include "hardware/DeviceFingerprint.h"
#include "kernels/KernelSizes.h"
#include "session/CudaKernelBackend.h"
#include "space/ValueJson.h"
#include "util/Error.h"
#include "util/SourceHash.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ts {

namespace {

// The kernel's constraints plus the extra ones, sizes bound, over the variant's parameters.
SearchSpace narrowedSpace(const KernelSpec& spec, const KernelSpace& kernelSpace, const ProblemSize& size,
                          const std::vector<std::string>& extra) {
    if (extra.empty())
        return kernelSpace.space();
    std::vector<std::string> constraints = kernelSpace.space().constraints();
    for (const std::string& c : extra)
        constraints.push_back(bindProblemSize(c, spec, size));
    try {
        return SearchSpace(kernelSpace.variant().parameters, constraints);
    } catch (const Error& e) {
        throw Error(fmt::format("A constraint of the plan: {}", e.what()));
    }
}

} // namespace

KernelSessionTarget::KernelSessionTarget(const SessionPlan& plan)
    : m_options(plan.kernel), m_backendName(plan.backend) {
    plan.check();
    m_spec = loadKernelSpec(m_options);
    m_size = kernelProblemSize(m_spec, m_options);
    m_kernelSpace = std::make_unique<KernelSpace>(m_spec, m_backendName, m_size);
    m_space = narrowedSpace(m_spec, *m_kernelSpace, m_size, plan.constraints);
    if (m_backendName == "cuda") {
        CudaTuneSettings cuda;
        cuda.timeoutS = m_options.timeoutS;
        cuda.timing = m_options.timing;
        cuda.seed = plan.seed;
        m_backend = makeCudaBackend(m_spec, *m_kernelSpace, cuda, m_space);
        return;
    }
    CpuBackendSettings settings;
    settings.cacheDirectory = m_options.cacheDir;
    settings.timeoutS = m_options.timeoutS;
    settings.timing = m_options.timing;
    settings.seed = plan.seed;
    auto cpu = std::make_unique<CpuBackend>(m_spec, *m_kernelSpace, settings, &m_space);
    m_cpu = cpu.get();
    m_backend = std::move(cpu);
}

void KernelSessionTarget::describe(SessionRecord& record) const {
    record.kernel = m_spec.name;
    record.problem = problemJson(m_spec, m_size);
    record.device = m_backend->deviceFingerprint();
    record.backend = m_backendName;
    record.sourceHash = SourceHash::ofFile(source());
    record.deviceInfo = m_backend->deviceDetails().toJson();
}

nlohmann::json KernelSessionTarget::defaultConfig() const {
    const KernelVariant& variant = m_kernelSpace->variant();
    nlohmann::json object = nlohmann::json::object();
    for (std::size_t i = 0; i < variant.parameters.size() && i < variant.defaults.size(); ++i)
        object[variant.parameters[i].name] = valueToJson(variant.defaults[i]);
    return object;
}

} // namespace ts
