// Fault injection for the CUDA pipeline: y = 2 * x, where MODE picks how a config behaves. One session over
// every MODE shows each failure recorded with its status while the session goes on (TestCudaGpu,
// scripts/gpu-check): compile_error (CompileFailed), illegal_address (RuntimeFailed, a sticky error: the
// worker is replaced), hang (Timeout: the worker is killed and replaced), wrong (WrongResult), ok.

extern "C" __global__ void faulty(const float* __restrict__ x, float* __restrict__ y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
#if defined(MODE_compile_error)
    this line does not compile, on purpose;
#endif
#if defined(MODE_hang)
    // Spins until the backend's timeout: the volatile read keeps the loop.
    volatile int spinning = 1;
    while (spinning) {
    }
#endif
#if defined(MODE_illegal_address)
    // Far outside any allocation (a store through nullptr may be optimised away).
    y[static_cast<long long>(i) - (1LL << 40)] = 1.0f;
#endif
    if (i < n) {
#if defined(MODE_wrong)
        y[i] = 3.0f * x[i];
#else
        y[i] = 2.0f * x[i];
#endif
    }
}
