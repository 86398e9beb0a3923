#include "hardware/GpuSpec.h"

#include <fmt/format.h>

namespace ts {

std::string GpuSpec::architecture() const {
    return fmt::format("sm_{}{}", computeMajor, computeMinor);
}

std::string GpuSpec::computeCapability() const {
    return fmt::format("{}.{}", computeMajor, computeMinor);
}

} // namespace ts
