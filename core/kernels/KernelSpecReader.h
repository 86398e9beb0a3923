#pragma once

#include "kernels/KernelSpec.h"

#include <filesystem>
#include <string>

namespace ts {

// Reads and validates a kernel spec (format: docs/kernel-spec.md). Everything is checked before anything is
// built: types and ranges of every key, unknown keys, that the defaults are among the values, that every
// expression parses and names only known identifiers, that source files exist. Throws Error with one sentence
// naming the file and the key ("kernels/gemm/kernel.json: variants.cpu.parameters[2].default 48 is not one of
// its values."). Paths in the result are absolute.
KernelSpec readKernelSpec(const std::filesystem::path& file);

// How a spec file is named in messages: relative to the repository when it lies inside it, else as given.
std::string displayPath(const std::filesystem::path& file);

} // namespace ts
