#pragma once

#include "space/Parameter.h"
#include "space/SearchSpace.h"
#include "space/Value.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// Element types of kernel buffers.
enum class ElementType { Float32, Float16, BFloat16, Int32 };

// How a buffer is filled before a run (seeded, so every config sees the same inputs).
enum class ArgumentFill { Random, Zero };

// One buffer argument of a kernel. Buffers are passed in the order the spec lists them.
struct KernelArgument {
    std::string name;
    ElementType type = ElementType::Float32;
    std::string count; // expression over the problem-size parameters: number of elements
    ArgumentFill fill = ArgumentFill::Random;
    bool output = false; // compared against the reference after a run
};

// A problem-size parameter ("M", "N", "K", "batch", ...) with its default value.
struct ProblemParameter {
    std::string name;
    std::int64_t defaultValue = 0;
};

// Problem-size values in the order of KernelSpec::problem.
using ProblemSize = std::vector<std::int64_t>;

// Output check: |out - ref| <= absolute + relative * |ref| element-wise.
struct Tolerance {
    double relative = 1e-4;
    double absolute = 1e-5;
};

// One backend's implementation of a kernel: its source, tunable parameters and launch rules.
struct KernelVariant {
    std::string backend;                  // "cpu" or "cuda"
    std::filesystem::path source;         // absolute path
    std::string entry;                    // exported symbol (cpu) or __global__ function (cuda)
    std::vector<std::string> flags;       // extra compiler flags, e.g. "-fopenmp"
    std::vector<Parameter> parameters;    // tunable parameters, passed as -D macros
    std::vector<std::string> constraints; // over tunable and problem-size parameter names
    Config defaults;                      // the kernel's default config, one value per parameter
    std::vector<std::string> grid;        // cuda: 1 to 3 expressions (number of blocks per dimension)
    std::vector<std::string> block;       // cuda: 1 to 3 expressions (threads per block per dimension)
    std::string dynamicSharedBytes;       // cuda: optional expression; empty means 0
};

// How the correct output is computed: a C++ source exporting the CPU ABI under the symbol
// "tunescope_reference", built once with the host compiler (flags may add libraries, e.g. -lopenblas).
// `gpu` optionally names a vendor routine that computes the same output on the GPU (kGpuReferences); the cuda
// backend then uses it instead of the CPU source, and as the speed baseline of its kernel.
struct KernelReference {
    std::filesystem::path source; // absolute path
    std::vector<std::string> flags;
    std::string gpu; // empty, "cublas_sgemm" or "cublas_gemm_f16"
};

// The vendor routines a spec may name as its GPU reference: row-major C = A * B with sizes M, N, K and
// arguments A, B, C; cublas_sgemm has fp32 A, B and C, cublas_gemm_f16 fp16 A and B with fp32 accumulation
// and C (cublasGemmEx).
inline constexpr const char* kGpuReferences[] = {"cublas_sgemm", "cublas_gemm_f16"};

// A kernel definition read from kernels/<name>/kernel.json (format: docs/kernel-spec.md).
struct KernelSpec {
    std::string name;
    std::string description;
    std::filesystem::path specFile; // absolute path of the JSON file
    std::vector<ProblemParameter> problem;
    std::string flops; // expression over problem sizes; empty when not meaningful
    std::string bytes; // expression over problem sizes: compulsory memory traffic
    std::vector<KernelArgument> arguments;
    Tolerance tolerance;
    KernelReference reference;
    std::map<std::string, KernelVariant> variants; // by backend name

    const KernelVariant* variant(const std::string& backend) const;
    ProblemSize defaultSize() const;
};

} // namespace ts
