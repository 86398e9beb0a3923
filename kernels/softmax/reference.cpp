// Reference for kernels/softmax: row-wise softmax of a rows x cols row-major matrix, in double precision
// (tunescope CPU ABI, docs/kernel-spec.md).
#include <cmath>
#include <cstdint>

extern "C" void tunescope_reference(void* const* buffers, const std::int64_t* sizes) {
    const std::int64_t rows = sizes[0], cols = sizes[1];
    const auto* x = static_cast<const float*>(buffers[0]);
    auto* y = static_cast<float*>(buffers[1]);
    for (std::int64_t i = 0; i < rows; ++i) {
        const float* row = x + i * cols;
        double m = row[0];
        for (std::int64_t j = 1; j < cols; ++j)
            m = row[j] > m ? row[j] : m;
        double sum = 0.0;
        for (std::int64_t j = 0; j < cols; ++j)
            sum += std::exp(row[j] - m);
        for (std::int64_t j = 0; j < cols; ++j)
            y[i * cols + j] = static_cast<float>(std::exp(row[j] - m) / sum);
    }
}
