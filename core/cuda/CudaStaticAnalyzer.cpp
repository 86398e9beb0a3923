#include "cuda/CudaStaticAnalyzer.h"

#include "cuda/NvrtcProgram.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>

namespace ts {

CudaStaticAnalyzer::CudaStaticAnalyzer(const KernelSpec& spec, const KernelSpace& space, GpuSpec gpu,
                                       NvrtcCompiler& compiler, std::string architecture)
    : m_spec(spec), m_space(space), m_compiler(compiler), m_calculator(std::move(gpu)),
      m_architecture(std::move(architecture)) {
    if (m_space.variant().backend != "cuda")
        throw Error(fmt::format("Kernel {}: static analysis needs its cuda variant, not {}.", spec.name,
                                m_space.variant().backend));
    if (m_architecture.empty())
        m_architecture = targetArchitecture(m_calculator.gpu(), &m_note);
}

std::string CudaStaticAnalyzer::targetArchitecture(const GpuSpec& gpu, std::string* note) {
    const int own = gpu.computeMajor * 10 + gpu.computeMinor;
    const std::vector<int> supported = NvrtcProgram::supportedArchitectures();
    if (std::find(supported.begin(), supported.end(), own) != supported.end())
        return gpu.architecture();
    auto newer = std::find_if(supported.begin(), supported.end(), [&](int a) { return a > own; });
    if (newer == supported.end())
        throw Error(fmt::format("NVRTC {} cannot compile for {} ({}) or any newer architecture.",
                                NvrtcProgram::version(), gpu.id, gpu.architecture()));
    const std::string chosen = fmt::format("sm_{}", *newer);
    if (note)
        *note = fmt::format("NVRTC {} does not support {} ({}); resources are those of {} code.",
                            NvrtcProgram::version(), gpu.architecture(), gpu.id, chosen);
    return chosen;
}

StaticProfile CudaStaticAnalyzer::complete(SearchSpace::Index index, const CudaBuildResult& build) const {
    StaticProfile p;
    p.index = index;
    p.architecture = m_architecture;
    p.compiled = build.ok && build.resources.has_value();
    p.log = build.log;
    p.compileMs = build.compileMs;
    p.launch = LaunchShape::of(m_spec, m_space, index);
    if (p.compiled) {
        p.resources = *build.resources;
        const std::int64_t threads = p.launch.threadsPerBlock();
        // A block larger than int can never fit; the calculator rejects it by the thread limit.
        const int clamped = static_cast<int>(std::min<std::int64_t>(threads, 1 << 30));
        p.occupancy = m_calculator.compute(p.resources, clamped, p.launch.dynamicSharedBytes);
    }
    return p;
}

std::vector<StaticProfile> CudaStaticAnalyzer::analyze(std::span<const SearchSpace::Index> indices,
                                                       std::size_t threads) {
    std::vector<SearchSpace::Index> missing;
    {
        std::lock_guard lock(m_mutex);
        for (SearchSpace::Index index : indices)
            if (!m_profiles.count(index) && std::find(missing.begin(), missing.end(), index) == missing.end())
                missing.push_back(index);
    }
    std::vector<CudaBuildRequest> requests;
    requests.reserve(missing.size());
    const KernelVariant& variant = m_space.variant();
    for (SearchSpace::Index index : missing) {
        CudaBuildRequest r;
        r.source = variant.source;
        r.entry = variant.entry;
        r.architecture = m_architecture;
        r.flags = variant.flags;
        r.macros = m_space.buildFlags(index);
        requests.push_back(std::move(r));
    }
    const std::vector<CudaBuildResult> builds = m_compiler.compileAll(requests, threads);
    std::vector<StaticProfile> completed;
    completed.reserve(missing.size());
    for (std::size_t i = 0; i < missing.size(); ++i)
        completed.push_back(complete(missing[i], builds[i]));
    std::lock_guard lock(m_mutex);
    for (StaticProfile& p : completed)
        m_profiles.emplace(p.index, std::move(p));
    std::vector<StaticProfile> out;
    out.reserve(indices.size());
    for (SearchSpace::Index index : indices)
        out.push_back(m_profiles.at(index));
    return out;
}

StaticProfile CudaStaticAnalyzer::profile(SearchSpace::Index index) {
    const SearchSpace::Index one[] = {index};
    return analyze(one, 1).front();
}

} // namespace ts
