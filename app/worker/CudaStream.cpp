#include "CudaStream.h"

#include "CudaError.h"

namespace ts::worker {

CudaStream::CudaStream() {
    checkCuda(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
}

CudaStream::~CudaStream() {
    if (m_stream)
        cudaStreamDestroy(m_stream);
}

void CudaStream::synchronize() const {
    checkCuda(cudaStreamSynchronize(m_stream), "cudaStreamSynchronize");
}

} // namespace ts::worker
