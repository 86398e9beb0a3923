#pragma once

#include "kernels/KernelSpec.h"
#include "space/Expression.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ts {

// Problem sizes of a kernel: parsing, display and the expressions over them (counts, flops, bytes).

// "--size" text: all values in problem order ("1024,1024,1024") or some by name ("M=512,K=256", the others
// keep their defaults). Throws Error naming the text and the problem (wrong count, unknown or repeated name,
// not a whole number, not positive, or a size at which some argument would be empty).
ProblemSize parseProblemSize(const KernelSpec& spec, std::string_view text);

// "M=1024,N=1024,K=1024": readable and accepted back by parseProblemSize.
std::string formatProblemSize(const KernelSpec& spec, const ProblemSize& size);

// {"M":1024,"N":1024,"K":1024}, in the spec's order: the problem size as a session record stores it.
std::string problemJson(const KernelSpec& spec, const ProblemSize& size);

// Looks up the problem-size names (as integers); nullopt for any other name. The spec and size must
// outlive the lookup.
Expression::Lookup problemLookup(const KernelSpec& spec, const ProblemSize& size);

// Evaluates an expression over the problem sizes to a number; `role` names it in errors ("flops").
double evaluateSizeExpression(const KernelSpec& spec, const ProblemSize& size, const std::string& text,
                              const std::string& role);

// Number of elements of an argument at a size; throws Error unless it is a positive whole number.
std::int64_t argumentCount(const KernelSpec& spec, const KernelArgument& argument, const ProblemSize& size);
// Throws Error (as argumentCount) when some argument would be empty at this size, e.g. a filter larger than
// the image. parseProblemSize calls it.
void checkArgumentCounts(const KernelSpec& spec, const ProblemSize& size);

// The spec's flops and bytes at a size; nullopt when the spec leaves them empty.
std::optional<double> kernelFlops(const KernelSpec& spec, const ProblemSize& size);
std::optional<double> kernelBytes(const KernelSpec& spec, const ProblemSize& size);

// The expression text with every problem-size name replaced by its value (whole-word, outside string
// literals): "MC <= M" at M=512 -> "MC <= 512". This is how constraints over sizes become constraints over
// the tunable parameters alone, which SearchSpace enumerates.
std::string bindProblemSize(const std::string& text, const KernelSpec& spec, const ProblemSize& size);

} // namespace ts
