#pragma once

#include <cuda_runtime.h>

namespace ts::worker {

// A non-blocking CUDA stream (RAII over cudaStreamCreateWithFlags / cudaStreamDestroy). Not copyable.
class CudaStream {
public:
    CudaStream();
    ~CudaStream();
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;

    cudaStream_t get() const { return m_stream; }
    void synchronize() const;

private:
    cudaStream_t m_stream = nullptr;
};

} // namespace ts::worker
