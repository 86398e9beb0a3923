#include "models/ConfigFeatureTable.h"

#include "util/Error.h"

#include <algorithm>
#include <cmath>

namespace ts {

ConfigFeatureTable::ConfigFeatureTable(std::vector<std::string> names) : m_names(std::move(names)) {}

void ConfigFeatureTable::set(SearchSpace::Index index, std::span<const float> row) {
    if (row.size() != width())
        throw Error("A feature row has another number of values than the table has columns.");
    auto [it, added] = m_rowOf.emplace(index, m_values.size() / std::max<std::size_t>(width(), 1));
    if (added)
        m_values.insert(m_values.end(), row.begin(), row.end());
    else
        std::copy(row.begin(), row.end(), m_values.begin() + std::ptrdiff_t(it->second * width()));
}

bool ConfigFeatureTable::covers(const SearchSpace& space, SpaceMode mode) const {
    const SearchSpace::Index size = space.domainSize(mode);
    if (size > m_rowOf.size())
        return false;
    for (SearchSpace::Index position = 0; position < size; ++position)
        if (!has(space.domainAt(mode, position)))
            return false;
    return true;
}

void ConfigFeatureTable::encode(SearchSpace::Index index, std::span<float> out) const {
    auto it = m_rowOf.find(index);
    if (it == m_rowOf.end()) {
        std::fill(out.begin(), out.end(), std::nanf(""));
        return;
    }
    auto start = m_values.begin() + std::ptrdiff_t(it->second * width());
    std::copy(start, start + std::ptrdiff_t(width()), out.begin());
}

} // namespace ts
