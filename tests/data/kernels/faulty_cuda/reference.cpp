// Reference for the fault-injection kernel: y = 2 * x.
#include <cstdint>

extern "C" void tunescope_reference(void* const* buffers, const std::int64_t* sizes) {
    const float* x = static_cast<const float*>(buffers[0]);
    float* y = static_cast<float*>(buffers[1]);
    for (std::int64_t i = 0; i < sizes[0]; ++i)
        y[i] = 2.0f * x[i];
}
