#include "extract/ModelNode.h"

namespace ts {

std::optional<std::vector<std::int64_t>> ModelShape::values() const {
    if (!known)
        return std::nullopt;
    std::vector<std::int64_t> out;
    for (const ModelDim& d : dims) {
        if (!d.value)
            return std::nullopt;
        out.push_back(*d.value);
    }
    return out;
}

std::int64_t ModelNode::intOr(const std::string& attribute, std::int64_t fallback) const {
    auto it = ints.find(attribute);
    return it == ints.end() || it->second.empty() ? fallback : it->second.front();
}

} // namespace ts
