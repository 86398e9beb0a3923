#pragma once

#include "build/BuildCache.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpec.h"
#include "worker/WorkerProtocol.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ts {

// What every kernel backend (cpu, cuda) asks of its worker for one config: the built library and its entry,
// the kernel's sizes, buffers and tolerance, the reference to check against, the input seed and the timing.
// A backend adds its own backendOptions.
struct KernelRequest {
    const KernelSpec& spec;
    const KernelSpace& space;
    const BuildResult& reference;
    const std::vector<worker::BufferSpec>& buffers;
    std::uint64_t seed = 0;
    worker::TimingSettings timing;

    worker::MeasureRequest make(std::int64_t id, std::string backend, std::string library,
                                std::string entry) const;
};

} // namespace ts
