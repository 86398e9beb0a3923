#pragma once

#include "kernels/KernelSpec.h"
#include "space/SearchSpace.h"

#include <optional>
#include <string>
#include <vector>

namespace ts {

// The search space of one kernel variant at one problem size. Constraints may name the problem sizes
// ("MC <= M"); their values are bound into the constraint text, so the SearchSpace holds exactly the
// variant's tunable parameters and a Config has one value per parameter in spec order.
class KernelSpace {
public:
    // Throws Error when the spec has no such variant, the size has the wrong number of values, or no config
    // satisfies the constraints at this size (one sentence naming the kernel and the size).
    KernelSpace(const KernelSpec& spec, const std::string& backend, const ProblemSize& size);

    const std::string& kernelName() const { return m_kernelName; }
    const KernelVariant& variant() const { return m_variant; }
    const ProblemSize& size() const { return m_size; }
    const SearchSpace& space() const { return m_space; }
    // The variant's constraints as written (m_space.constraints() holds them with the sizes bound).
    const std::vector<std::string>& constraints() const { return m_variant.constraints; }

    // The kernel's default config, when it is valid at this size.
    std::optional<SearchSpace::Index> defaultIndex() const;
    // -D options for a config of this space.
    std::vector<std::string> buildFlags(SearchSpace::Index index) const;

private:
    std::string m_kernelName;
    KernelVariant m_variant;
    ProblemSize m_size;
    SearchSpace m_space;
};

} // namespace ts
