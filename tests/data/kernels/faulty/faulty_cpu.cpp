// Fault injection for tests: y = 2 * x, unless MODE (a -DMODE_<value>=1 macro) makes the config fail on
// purpose: a compile error, a segmentation fault, an endless loop or a wrong answer. MODE=print is a correct
// config that writes to stdout on every call (the worker's protocol channel must survive it).
#include <cstdint>
#include <cstdio>

#if defined(MODE_compile_error)
#error "MODE=compile_error: this config does not compile, on purpose"
#endif

extern "C" void tunescope_kernel(void* const* buffers, const std::int64_t* sizes) {
    const float* x = static_cast<const float*>(buffers[0]);
    float* y = static_cast<float*>(buffers[1]);
    const std::int64_t n = sizes[0];
#if defined(MODE_segfault)
    volatile int* invalid = reinterpret_cast<volatile int*>(std::uintptr_t{16});
    *invalid = 1; // SIGSEGV
#elif defined(MODE_print)
    std::printf("faulty kernel: hello from stdout\n");
#elif defined(MODE_hang)
    volatile bool forever = true;
    while (forever) {
    }
#endif
    for (std::int64_t i = 0; i < n; i += UNROLL)
        for (std::int64_t u = 0; u < UNROLL; ++u)
            y[i + u] = 2.0f * x[i + u];
#if defined(MODE_wrong)
    y[n / 2] += 1.0f;
#endif
}
