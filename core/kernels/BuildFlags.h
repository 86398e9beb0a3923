#pragma once

#include "space/Parameter.h"
#include "space/Value.h"

#include <string>
#include <vector>

namespace ts {

// The -D options that pass a config to a kernel source (docs/kernel-spec.md): numbers as -DNAME=value,
// booleans as -DNAME=0|1, a string value v as -DNAME_v=1. `config` holds one value per parameter, in order.
// Throws Error when the sizes differ.
std::vector<std::string> buildFlags(const std::vector<Parameter>& parameters, const Config& config);

} // namespace ts
