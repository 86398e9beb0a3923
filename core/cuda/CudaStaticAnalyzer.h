#pragma once

#include "cuda/NvrtcCompiler.h"
#include "hardware/GpuSpec.h"
#include "hardware/OccupancyCalculator.h"
#include "hardware/StaticProfile.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpec.h"

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace ts {

// Static analysis of a CUDA variant's configs on one GPU model, with no GPU needed: each config is compiled
// by NVRTC for the target architecture (cached on disk), ptxas' report gives its resources, the spec's
// launch expressions its geometry, and cuda_occupancy.h its occupancy. Profiles are kept per index, so
// asking twice compiles once. Thread-safe. The spec, space and compiler must outlive the analyzer.
class CudaStaticAnalyzer {
public:
    // `architecture` empty means the GPU's own (see targetArchitecture). Throws Error when the space is not a
    // CUDA variant or the architecture is malformed.
    CudaStaticAnalyzer(const KernelSpec& spec, const KernelSpace& space, GpuSpec gpu, NvrtcCompiler& compiler,
                       std::string architecture = {});

    // The sm_XX to compile for on `gpu`: its own when NVRTC supports it, else the oldest newer one NVRTC
    // supports (CUDA 13 dropped sm_70, so V100 is analysed with sm_75 code); `note` then says so.
    static std::string targetArchitecture(const GpuSpec& gpu, std::string* note = nullptr);

    const GpuSpec& gpu() const { return m_calculator.gpu(); }
    const std::string& architecture() const { return m_architecture; }
    const std::string& note() const { return m_note; }

    // Profiles in the order of `indices`, compiling the missing ones in parallel (`threads` 0: one per core).
    std::vector<StaticProfile> analyze(std::span<const SearchSpace::Index> indices, std::size_t threads = 0);
    StaticProfile profile(SearchSpace::Index index);

private:
    StaticProfile complete(SearchSpace::Index index, const CudaBuildResult& build) const;

    const KernelSpec& m_spec;
    const KernelSpace& m_space;
    NvrtcCompiler& m_compiler;
    OccupancyCalculator m_calculator;
    std::string m_architecture;
    std::string m_note;
    std::mutex m_mutex;
    std::map<SearchSpace::Index, StaticProfile> m_profiles;
};

} // namespace ts
