#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

// The parameter macros (-DNAME or -DNAME=value) whose NAME appears as an identifier in at least one of the
// texts (a kernel's source and the files it may include), in their order. A macro that no source names cannot
// change what the preprocessor makes of them, so two configs that differ only in such macros build the same
// cubin (Kernel Tuner's convolution takes `use_shmem` as a parameter and never reads it). Names in comments
// count as named, which errs towards keeping a macro. Not seen: a name assembled by token pasting (a##b), and
// macros that system headers read, which is why only parameter macros are filtered, never a variant's
// options. A flag that is not of the form -DNAME[=value] is kept.
std::vector<std::string> macrosNamedIn(std::span<const std::string> macros,
                                       std::span<const std::string> texts);

} // namespace ts
