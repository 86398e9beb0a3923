#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace ts::worker {

// A cubin loaded with the runtime's library API (RAII over cudaLibraryLoadData / cudaLibraryUnload), so no
// driver API (libcuda) is linked. Not copyable.
class CudaKernelLibrary {
public:
    // Throws CudaError naming the call when the cubin does not load (wrong architecture, corrupt file).
    explicit CudaKernelLibrary(const std::vector<char>& cubin);
    ~CudaKernelLibrary();
    CudaKernelLibrary(const CudaKernelLibrary&) = delete;
    CudaKernelLibrary& operator=(const CudaKernelLibrary&) = delete;

    // The __global__ function `name` (extern "C"); usable as the `func` of cudaLaunchKernel.
    cudaKernel_t kernel(const std::string& name) const;

private:
    cudaLibrary_t m_library = nullptr;
};

} // namespace ts::worker
