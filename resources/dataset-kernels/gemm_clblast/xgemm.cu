// Tunescope's entry for CLBlast's Xgemm as benchmark_hub's gemm_milo.py compiles it: cl_to_cuda.h, then
// common.opencl and xgemm_part1..4.opencl, verbatim copies (see ATTRIBUTION.md). The kernel gets C linkage,
// as Kernel Tuner gives it, so its name stays unmangled.
#include "cl_to_cuda.h"
#include "common.opencl"
#include "xgemm_part1.opencl"
#include "xgemm_part2.opencl"
#include "xgemm_part3.opencl"
extern "C" {
#include "xgemm_part4.opencl"
}
