#include "kernels/KernelSpace.h"

#include "kernels/BuildFlags.h"
#include "kernels/KernelSizes.h"
#include "util/Error.h"

#include <cctype>

namespace ts {

KernelSpace::KernelSpace(const KernelSpec& spec, const std::string& backend, const ProblemSize& size)
    : m_kernelName(spec.name), m_size(size) {
    const KernelVariant* variant = spec.variant(backend);
    if (!variant) {
        std::string known;
        for (const auto& [name, v] : spec.variants) {
            known += (known.empty() ? "" : ", ") + name;
        }
        throw Error("Kernel " + spec.name + " has no " + backend + " variant (it has " + known + ").");
    }
    if (size.size() != spec.problem.size()) {
        throw Error("Kernel " + spec.name + " takes " + std::to_string(spec.problem.size()) +
                    " size values, not " + std::to_string(size.size()) + ".");
    }
    m_variant = *variant;
    std::vector<std::string> bound;
    bound.reserve(m_variant.constraints.size());
    for (const auto& constraint : m_variant.constraints) {
        bound.push_back(bindProblemSize(constraint, spec, size));
    }
    try {
        m_space = SearchSpace(m_variant.parameters, std::move(bound));
    } catch (const Error& e) {
        std::string reason = e.what();
        reason.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(reason.front())));
        throw Error("Kernel " + spec.name + " (" + backend + ") at size " + formatProblemSize(spec, size) +
                    ": " + reason);
    }
}

std::optional<SearchSpace::Index> KernelSpace::defaultIndex() const {
    const auto index = m_space.indexOf(m_variant.defaults);
    if (index && m_space.isValid(*index)) {
        return index;
    }
    return std::nullopt;
}

std::vector<std::string> KernelSpace::buildFlags(SearchSpace::Index index) const {
    return ts::buildFlags(m_variant.parameters, m_space.config(index));
}

} // namespace ts
