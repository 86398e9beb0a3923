#pragma once

#include <cuda_runtime.h>

namespace ts::worker {

// A CUDA event for timing (RAII over cudaEventCreate / cudaEventDestroy). Not copyable.
class CudaEvent {
public:
    CudaEvent();
    ~CudaEvent();
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;

    void record(cudaStream_t stream);
    // Milliseconds from `start` to this event; waits for this event to complete.
    float elapsedSince(const CudaEvent& start) const;

private:
    cudaEvent_t m_event = nullptr;
};

} // namespace ts::worker
