#pragma once

#include "backends/Backend.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpec.h"
#include "worker/WorkerProtocol.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ts {

struct CudaTuneSettings {
    double timeoutS = 10.0;
    worker::TimingSettings timing;
    std::uint64_t seed = 0;
};

// The CUDA backend as a factory that every build can call: with TUNESCOPE_WITH_CUDA it is a CudaBackend
// measuring the kernel's cuda variant on this machine's GPUs (every GPU of the first GPU's model); without,
// creating one throws. Throws Error with one sentence when there is no CUDA device. The space must outlive
// the backend.
std::unique_ptr<Backend> makeCudaBackend(const KernelSpec& spec, const KernelSpace& kernelSpace,
                                         const CudaTuneSettings& settings, const SearchSpace& space);

// Whether this build has the CUDA backend and this machine a CUDA device (what a UI offers "cuda" on).
bool cudaDeviceAvailable();

// The name of the GPU model the cuda backend measures on (the first GPU's, as the runtime reports it); empty
// without a CUDA device or backend.
std::string cudaDeviceName();

} // namespace ts
