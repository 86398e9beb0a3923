#pragma once

#include <cuda_runtime.h>

#include <string>

struct cublasContext;

namespace ts::worker {

// cuBLAS, opened lazily with dlopen (libcublas.so.13, then libcublas.so) so that the worker starts, and CPU
// measuring works, on machines without it. One handle; RAII over the handle and the dlopen handle.
// Used as the GPU reference of the GEMM kernels (reference.gpu) and as the speed baseline of gpu-check.
class CudaBlas {
public:
    // Throws Error naming the library when cuBLAS cannot be opened or a handle cannot be created.
    CudaBlas();
    ~CudaBlas();
    CudaBlas(const CudaBlas&) = delete;
    CudaBlas& operator=(const CudaBlas&) = delete;

    // Row-major C = A * B, fp32 (A m x k, B k x n, C m x n), enqueued on `stream`.
    void sgemm(cudaStream_t stream, int m, int n, int k, const float* a, const float* b, float* c);
    // Row-major C = A * B with fp16 A and B, fp32 accumulation and fp32 C (cublasGemmEx, default algorithm,
    // tensor cores allowed), enqueued on `stream`.
    void gemmHalf(cudaStream_t stream, int m, int n, int k, const void* a, const void* b, float* c);
    const std::string& libraryPath() const { return m_path; }

private:
    void bind(cudaStream_t stream);

    void* m_library = nullptr;
    std::string m_path;
    cublasContext* m_handle = nullptr;
    void* m_sgemm = nullptr;
    void* m_gemmEx = nullptr;
    void* m_setStream = nullptr;
    void* m_destroy = nullptr;
};

} // namespace ts::worker
