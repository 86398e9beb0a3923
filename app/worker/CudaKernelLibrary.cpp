#include "CudaKernelLibrary.h"

#include "CudaError.h"

namespace ts::worker {

CudaKernelLibrary::CudaKernelLibrary(const std::vector<char>& cubin) {
    checkCuda(cudaLibraryLoadData(&m_library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              "cudaLibraryLoadData");
}

CudaKernelLibrary::~CudaKernelLibrary() {
    if (m_library)
        cudaLibraryUnload(m_library);
}

cudaKernel_t CudaKernelLibrary::kernel(const std::string& name) const {
    cudaKernel_t kernel = nullptr;
    checkCuda(cudaLibraryGetKernel(&kernel, m_library, name.c_str()), "cudaLibraryGetKernel");
    return kernel;
}

} // namespace ts::worker
