// Tunescope's entry for the measured dedispersion source (dedispersion_milo.cuh and dedispersion.h, verbatim
// copies of benchmark_hub's kernels/dedisp_milo/dedispersion.cu and dedispersion.h; see ATTRIBUTION.md),
// with C linkage as Kernel Tuner compiles it.
extern "C" {
#include "dedispersion_milo.cuh"
}
