#include "kernels/KernelSpec.h"

namespace ts {

const KernelVariant* KernelSpec::variant(const std::string& backend) const {
    const auto it = variants.find(backend);
    return it == variants.end() ? nullptr : &it->second;
}

ProblemSize KernelSpec::defaultSize() const {
    ProblemSize size;
    size.reserve(problem.size());
    for (const ProblemParameter& parameter : problem) {
        size.push_back(parameter.defaultValue);
    }
    return size;
}

} // namespace ts
