#pragma once

#include "models/XgbMatrix.h"
#include "space/SearchSpace.h"

#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace ts {

// The last configs a strategy encoded as an XGBoost matrix, shared with its XGBoost cost models: a model
// asked to predict exactly these configs uses the matrix instead of encoding them again, so a candidate pool
// is encoded once per batch for the validity classifier and the regressors together. Thread-safe.
class EncodedConfigs {
public:
    void set(std::span<const SearchSpace::Index> configs, std::shared_ptr<const XgbMatrix> features);
    // The matrix of `configs` when they are exactly the configs last set, else null.
    std::shared_ptr<const XgbMatrix> find(std::span<const SearchSpace::Index> configs) const;

private:
    mutable std::mutex m_mutex;
    std::vector<SearchSpace::Index> m_configs;
    std::shared_ptr<const XgbMatrix> m_features;
};

} // namespace ts
