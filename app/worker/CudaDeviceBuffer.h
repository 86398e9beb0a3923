#pragma once

#include <cstddef>

namespace ts::worker {

// Device memory (RAII over cudaMalloc / cudaFree). Movable, not copyable.
class CudaDeviceBuffer {
public:
    CudaDeviceBuffer() = default;
    explicit CudaDeviceBuffer(std::size_t bytes);
    ~CudaDeviceBuffer();
    CudaDeviceBuffer(CudaDeviceBuffer&& other) noexcept;
    CudaDeviceBuffer& operator=(CudaDeviceBuffer&& other) noexcept;
    CudaDeviceBuffer(const CudaDeviceBuffer&) = delete;
    CudaDeviceBuffer& operator=(const CudaDeviceBuffer&) = delete;

    void* data() const { return m_data; }
    std::size_t bytes() const { return m_bytes; }

private:
    void* m_data = nullptr;
    std::size_t m_bytes = 0;
};

} // namespace ts::worker
