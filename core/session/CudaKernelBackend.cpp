#include "session/CudaKernelBackend.h"

#include "util/Error.h"
#ifdef TUNESCOPE_WITH_CUDA
#include "cuda/CudaBackend.h"
#include "cuda/CudaDevices.h"
#endif

#include <fmt/format.h>

namespace ts {

#ifdef TUNESCOPE_WITH_CUDA

std::unique_ptr<Backend> makeCudaBackend(const KernelSpec& spec, const KernelSpace& kernelSpace,
                                         const CudaTuneSettings& settings, const SearchSpace& space) {
    const CudaDevices devices = CudaDevices::query();
    if (devices.empty())
        throw Error(
            fmt::format("The cuda backend cannot measure: there is no CUDA device on this machine ({}).",
                        devices.unavailableReason()));
    CudaBackendSettings cuda;
    cuda.timeoutS = settings.timeoutS;
    cuda.timing = settings.timing;
    cuda.seed = settings.seed;
    return std::make_unique<CudaBackend>(spec, kernelSpace, cuda, &space);
}

bool cudaDeviceAvailable() {
    return !CudaDevices::query().empty();
}

std::string cudaDeviceName() {
    const CudaDevices devices = CudaDevices::query();
    return devices.empty() ? std::string() : devices.devices().front().spec.name;
}

#else

std::unique_ptr<Backend> makeCudaBackend(const KernelSpec&, const KernelSpace&, const CudaTuneSettings&,
                                         const SearchSpace&) {
    throw Error("The cuda backend cannot measure: there is no CUDA device (this build of Tunescope has no "
                "CUDA backend).");
}

bool cudaDeviceAvailable() {
    return false;
}

std::string cudaDeviceName() {
    return {};
}

#endif

} // namespace ts
