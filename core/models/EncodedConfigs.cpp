#include "models/EncodedConfigs.h"

#include <algorithm>

namespace ts {

void EncodedConfigs::set(std::span<const SearchSpace::Index> configs,
                         std::shared_ptr<const XgbMatrix> features) {
    std::lock_guard lock(m_mutex);
    m_configs.assign(configs.begin(), configs.end());
    m_features = std::move(features);
}

std::shared_ptr<const XgbMatrix> EncodedConfigs::find(std::span<const SearchSpace::Index> configs) const {
    std::lock_guard lock(m_mutex);
    if (!m_features || !std::equal(configs.begin(), configs.end(), m_configs.begin(), m_configs.end()))
        return nullptr;
    return m_features;
}

} // namespace ts
