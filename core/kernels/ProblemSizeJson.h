#pragma once

#include "kernels/KernelSpec.h"

#include <optional>
#include <string>

namespace ts {

// The inverse of problemJson (KernelSizes.h): {"M":1024,"N":1024,"K":1024} as a session record stores it
// -> the size in the spec's order. Names the object leaves out keep their defaults. nullopt when the text
// is not such an object, names a parameter the spec lacks, or holds a value that is not a positive integer
// (replay sessions store their dataset's own problem text, e.g. "[4096, 4096]").
std::optional<ProblemSize> parseProblemJson(const KernelSpec& spec, const std::string& text);

} // namespace ts
