#include "CudaBlas.h"

#include "util/Error.h"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <fmt/format.h>

namespace ts::worker {

namespace {

void checkCublas(cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw Error(fmt::format("cuBLAS call {} failed with status {}.", call, static_cast<int>(status)));
}

} // namespace

CudaBlas::CudaBlas() {
    for (const char* name : {"libcublas.so.13", "libcublas.so"}) {
        m_library = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (m_library) {
            m_path = name;
            break;
        }
    }
    if (!m_library)
        throw Error(fmt::format("cuBLAS (libcublas.so.13) cannot be opened: {}.", ::dlerror()));
    auto symbol = [&](const char* name) {
        void* s = ::dlsym(m_library, name);
        if (!s)
            throw Error(fmt::format("cuBLAS ({}) lacks the symbol {}.", m_path, name));
        return s;
    };
    auto create = reinterpret_cast<decltype(&cublasCreate_v2)>(symbol("cublasCreate_v2"));
    m_sgemm = symbol("cublasSgemm_v2");
    m_gemmEx = symbol("cublasGemmEx");
    m_setStream = symbol("cublasSetStream_v2");
    m_destroy = symbol("cublasDestroy_v2");
    checkCublas(create(&m_handle), "cublasCreate_v2");
}

CudaBlas::~CudaBlas() {
    if (m_handle)
        reinterpret_cast<decltype(&cublasDestroy_v2)>(m_destroy)(m_handle);
    if (m_library)
        ::dlclose(m_library);
}

void CudaBlas::bind(cudaStream_t stream) {
    checkCublas(reinterpret_cast<decltype(&cublasSetStream_v2)>(m_setStream)(m_handle, stream),
                "cublasSetStream_v2");
}

void CudaBlas::sgemm(cudaStream_t stream, int m, int n, int k, const float* a, const float* b, float* c) {
    bind(stream);
    const float alpha = 1.0f, beta = 0.0f;
    // cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T.
    checkCublas(reinterpret_cast<decltype(&cublasSgemm_v2)>(m_sgemm)(m_handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m,
                                                                     k, &alpha, b, n, a, k, &beta, c, n),
                "cublasSgemm_v2");
}

void CudaBlas::gemmHalf(cudaStream_t stream, int m, int n, int k, const void* a, const void* b, float* c) {
    bind(stream);
    const float alpha = 1.0f, beta = 0.0f;
    // Column-major C^T = B^T A^T, as in sgemm.
    // cublasGemmEx is overloaded in C++ (the cudaDataType compute type of older releases); the C symbol is
    // this.
    using GemmEx =
        cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                           const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                           cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
    checkCublas(reinterpret_cast<GemmEx>(m_gemmEx)(m_handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b,
                                                   CUDA_R_16F, n, a, CUDA_R_16F, k, &beta, c, CUDA_R_32F, n,
                                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx");
}

} // namespace ts::worker
