// Tunescope's entry for the measured convolution source (convolution_milo.cuh, a verbatim copy of
// benchmark_hub's kernels/convolution_milo.cu; see ATTRIBUTION.md). Kernel Tuner compiles its CUDA sources
// with C linkage, so the kernels' names stay unmangled; so does this wrapper.
extern "C" {
#include "convolution_milo.cuh"
}
