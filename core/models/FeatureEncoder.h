#pragma once

#include "models/ConfigFeatureTable.h"
#include "space/SearchSpace.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ts {

// Generic features of a config, needing no per-kernel engineering: for every parameter with more than one
// value, log2 of its value when all its values are positive numbers (the value itself for other numbers,
// the value's position for strings), then for every pair of positive numeric parameters the log-sum and
// log-difference (products and ratios such as threads per block or tile per thread). With a table of extra
// features (a static profile's hardware features), its columns follow the generic ones.
class FeatureEncoder {
public:
    FeatureEncoder() = default;
    explicit FeatureEncoder(const SearchSpace& space,
                            std::shared_ptr<const ConfigFeatureTable> extra = nullptr);

    std::size_t width() const { return m_names.size(); }
    const std::vector<std::string>& names() const { return m_names; }

    void encode(const SearchSpace& space, SearchSpace::Index index, std::span<float> out) const;
    // Row-major rows for the indices.
    std::vector<float> encode(const SearchSpace& space, std::span<const SearchSpace::Index> indices) const;

private:
    struct Column {
        std::size_t parameter;
        std::vector<float> valueFeature; // per value position
    };
    std::vector<Column> m_columns;
    std::vector<std::pair<std::size_t, std::size_t>> m_pairs; // columns with logarithmic features
    std::shared_ptr<const ConfigFeatureTable> m_extra;
    std::vector<std::string> m_names;
};

} // namespace ts
