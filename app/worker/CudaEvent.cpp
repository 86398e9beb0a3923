#include "CudaEvent.h"

#include "CudaError.h"

namespace ts::worker {

CudaEvent::CudaEvent() {
    checkCuda(cudaEventCreate(&m_event), "cudaEventCreate");
}

CudaEvent::~CudaEvent() {
    if (m_event)
        cudaEventDestroy(m_event);
}

void CudaEvent::record(cudaStream_t stream) {
    checkCuda(cudaEventRecord(m_event, stream), "cudaEventRecord");
}

float CudaEvent::elapsedSince(const CudaEvent& start) const {
    checkCuda(cudaEventSynchronize(m_event), "cudaEventSynchronize");
    float ms = 0.0f;
    checkCuda(cudaEventElapsedTime(&ms, start.m_event, m_event), "cudaEventElapsedTime");
    return ms;
}

} // namespace ts::worker
