// The convolution the kernel computes: output[y][x] = sum over the 15x15 filter of input[y + i][x + j] *
// filter[i][j], the input carrying a 14-pixel border (Tunescope's CPU ABI; see docs/kernel-spec.md).
#include <cstdint>

extern "C" void tunescope_reference(void* const* buffers, const std::int64_t* sizes) {
    float* output = static_cast<float*>(buffers[0]);
    const float* input = static_cast<const float*>(buffers[1]);
    const float* filter = static_cast<const float*>(buffers[2]);
    const std::int64_t width = sizes[0];
    const std::int64_t height = sizes[1];
    const std::int64_t inputWidth = width + 14;
    for (std::int64_t y = 0; y < height; ++y)
        for (std::int64_t x = 0; x < width; ++x) {
            float sum = 0.0f;
            for (int i = 0; i < 15; ++i)
                for (int j = 0; j < 15; ++j)
                    sum += input[(y + i) * inputWidth + x + j] * filter[i * 15 + j];
            output[y * width + x] = sum;
        }
}
