// Reference for kernels/gemm_tc: C = A * B with fp16 inputs (IEEE binary16 bits) and fp32 output, computed on
// the CPU in fp32 (tunescope CPU ABI, docs/kernel-spec.md). The inputs are converted exactly; the sums differ
// from the tensor cores' only in order, which the spec's tolerance allows for.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

float halfToFloat(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const int exponent = (h >> 10) & 0x1f;
    const std::uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0) // zero or subnormal: mantissa * 2^-24
        return (sign ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(mantissa), -24);
    std::uint32_t bits = sign;
    if (exponent == 31)
        bits |= 0x7f800000u | (mantissa << 13);
    else
        bits |= static_cast<std::uint32_t>(exponent - 15 + 127) << 23 | (mantissa << 13);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

std::vector<float> widen(const void* data, std::int64_t count) {
    const auto* h = static_cast<const std::uint16_t*>(data);
    std::vector<float> out(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i)
        out[static_cast<std::size_t>(i)] = halfToFloat(h[i]);
    return out;
}

} // namespace

extern "C" void tunescope_reference(void* const* buffers, const std::int64_t* sizes) {
    const std::int64_t m = sizes[0], n = sizes[1], k = sizes[2];
    const std::vector<float> a = widen(buffers[0], m * k);
    const std::vector<float> b = widen(buffers[1], k * n);
    float* c = static_cast<float*>(buffers[2]);
    for (std::int64_t i = 0; i < m; ++i) {
        float* row = c + i * n;
        std::memset(row, 0, static_cast<std::size_t>(n) * sizeof(float));
        for (std::int64_t p = 0; p < k; ++p) {
            const float x = a[static_cast<std::size_t>(i * k + p)];
            const float* brow = b.data() + p * n;
            for (std::int64_t j = 0; j < n; ++j)
                row[j] += x * brow[j];
        }
    }
}
