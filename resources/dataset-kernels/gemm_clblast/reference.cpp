// What Xgemm computes with alpha = beta = 1 (benchmark_hub's gemm_milo.py): C = A * B + C, column-major
// (Tunescope's CPU ABI; see docs/kernel-spec.md).
#include <cstdint>

extern "C" void tunescope_reference(void* const* buffers, const std::int64_t* sizes) {
    const float* a = static_cast<const float*>(buffers[0]);
    const float* b = static_cast<const float*>(buffers[1]);
    float* c = static_cast<float*>(buffers[2]);
    const std::int64_t m = sizes[0];
    const std::int64_t n = sizes[1];
    const std::int64_t k = sizes[2];
    for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t p = 0; p < k; ++p) {
            const float bpj = b[j * k + p];
            for (std::int64_t i = 0; i < m; ++i)
                c[j * m + i] += a[p * m + i] * bpj;
        }
}
