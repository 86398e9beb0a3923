// Reference for kernels/gemm_async: OpenBLAS sgemm, row-major C = A * B (tunescope CPU ABI, docs/kernel-spec.md).
#include <cblas.h>

#include <cstdint>

extern "C" void tunescope_reference(void* const* buffers, const std::int64_t* sizes) {
    const auto m = static_cast<blasint>(sizes[0]);
    const auto n = static_cast<blasint>(sizes[1]);
    const auto k = static_cast<blasint>(sizes[2]);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                static_cast<const float*>(buffers[0]), k, static_cast<const float*>(buffers[1]), n, 0.0f,
                static_cast<float*>(buffers[2]), n);
}
