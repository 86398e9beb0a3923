// Reference for kernels/conv2d: the plain loop nest in double precision, NCHW input, KCRS filter, NKPQ
// output, stride 1, no padding (tunescope CPU ABI, docs/kernel-spec.md).
#include <cstdint>

extern "C" void tunescope_reference(void* const* buffers, const std::int64_t* sizes) {
    const std::int64_t n = sizes[0], c = sizes[1], h = sizes[2], w = sizes[3], k = sizes[4], r = sizes[5],
                       s = sizes[6];
    const std::int64_t p = h - r + 1, q = w - s + 1;
    const auto* in = static_cast<const float*>(buffers[0]);
    const auto* f = static_cast<const float*>(buffers[1]);
    auto* out = static_cast<float*>(buffers[2]);
    for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t o = 0; o < k; ++o)
            for (std::int64_t y = 0; y < p; ++y)
                for (std::int64_t x = 0; x < q; ++x) {
                    double sum = 0.0;
                    for (std::int64_t i = 0; i < c; ++i)
                        for (std::int64_t dy = 0; dy < r; ++dy)
                            for (std::int64_t dx = 0; dx < s; ++dx)
                                sum += static_cast<double>(in[((b * c + i) * h + y + dy) * w + x + dx]) *
                                       f[((o * c + i) * r + dy) * s + dx];
                    out[((b * k + o) * p + y) * q + x] = static_cast<float>(sum);
                }
}
