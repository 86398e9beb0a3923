#pragma once

#include "space/SearchSpace.h"

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace ts {

// Extra model inputs known for configs before any of them is measured, such as a static profile's hardware
// features (registers, spills, shared memory, occupancy on the GPU): a row of floats per config of a space,
// appended by FeatureEncoder to the generic parameter features. Filled once, then read-only and safe to
// share between threads. A config without a row encodes as missing values (NaN, which XGBoost treats as
// missing), so a table must cover every config of a search's domain to carry no hint of which configs were
// measured (covers()).
class ConfigFeatureTable {
public:
    explicit ConfigFeatureTable(std::vector<std::string> names);

    // Sets the row of `index`; `row` has width() values. Replaces an earlier row of the same config.
    void set(SearchSpace::Index index, std::span<const float> row);

    std::size_t width() const { return m_names.size(); }
    const std::vector<std::string>& names() const { return m_names; }
    std::size_t rows() const { return m_rowOf.size(); }
    bool has(SearchSpace::Index index) const { return m_rowOf.contains(index); }
    // Whether every config of the space's domain in `mode` has a row.
    bool covers(const SearchSpace& space, SpaceMode mode) const;

    // Writes the row of `index` to `out` (width() values), NaN where the table has no row for it.
    void encode(SearchSpace::Index index, std::span<float> out) const;

private:
    std::vector<std::string> m_names;
    std::unordered_map<SearchSpace::Index, std::size_t> m_rowOf;
    std::vector<float> m_values;
};

} // namespace ts
