#include "CudaDeviceBuffer.h"

#include "CudaError.h"

#include <utility>

namespace ts::worker {

CudaDeviceBuffer::CudaDeviceBuffer(std::size_t bytes) : m_bytes(bytes) {
    checkCuda(cudaMalloc(&m_data, bytes > 0 ? bytes : 1), "cudaMalloc");
}

CudaDeviceBuffer::~CudaDeviceBuffer() {
    if (m_data)
        cudaFree(m_data); // a failure here (after a sticky error) changes nothing: the process is replaced
}

CudaDeviceBuffer::CudaDeviceBuffer(CudaDeviceBuffer&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_bytes(std::exchange(other.m_bytes, 0)) {}

CudaDeviceBuffer& CudaDeviceBuffer::operator=(CudaDeviceBuffer&& other) noexcept {
    std::swap(m_data, other.m_data);
    std::swap(m_bytes, other.m_bytes);
    return *this;
}

} // namespace ts::worker
