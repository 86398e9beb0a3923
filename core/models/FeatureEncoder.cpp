#include "models/FeatureEncoder.h"

#include <cmath>

namespace ts {

namespace {

bool allPositiveNumbers(const Parameter& p) {
    for (const Value& v : p.values)
        if (!isNumeric(v) || toNumber(v) <= 0.0)
            return false;
    return true;
}

} // namespace

FeatureEncoder::FeatureEncoder(const SearchSpace& space, std::shared_ptr<const ConfigFeatureTable> extra)
    : m_extra(std::move(extra)) {
    std::vector<std::size_t> logarithmic;
    for (std::size_t i = 0; i < space.dimension(); ++i) {
        const Parameter& p = space.parameters()[i];
        if (p.values.size() < 2)
            continue;
        Column column{i, {}};
        bool positive = allPositiveNumbers(p);
        for (std::size_t v = 0; v < p.values.size(); ++v) {
            const Value& value = p.values[v];
            double feature = positive           ? std::log2(toNumber(value))
                             : isNumeric(value) ? toNumber(value)
                                                : double(v);
            column.valueFeature.push_back(static_cast<float>(feature));
        }
        if (positive)
            logarithmic.push_back(m_columns.size());
        m_columns.push_back(std::move(column));
        m_names.push_back(positive ? "log2 " + p.name : p.name);
    }
    for (std::size_t a = 0; a < logarithmic.size(); ++a)
        for (std::size_t b = a + 1; b < logarithmic.size(); ++b) {
            m_pairs.emplace_back(logarithmic[a], logarithmic[b]);
            const std::string& x = space.parameters()[m_columns[logarithmic[a]].parameter].name;
            const std::string& y = space.parameters()[m_columns[logarithmic[b]].parameter].name;
            m_names.push_back("log2 " + x + "*" + y);
            m_names.push_back("log2 " + x + "/" + y);
        }
    if (m_extra)
        m_names.insert(m_names.end(), m_extra->names().begin(), m_extra->names().end());
}

void FeatureEncoder::encode(const SearchSpace& space, SearchSpace::Index index, std::span<float> out) const {
    std::vector<std::uint32_t> digits = space.digits(index);
    std::size_t k = 0;
    for (const Column& column : m_columns)
        out[k++] = column.valueFeature[digits[column.parameter]];
    for (auto [a, b] : m_pairs) {
        out[k++] = out[a] + out[b];
        out[k++] = out[a] - out[b];
    }
    if (m_extra)
        m_extra->encode(index, out.subspan(k, m_extra->width()));
}

std::vector<float> FeatureEncoder::encode(const SearchSpace& space,
                                          std::span<const SearchSpace::Index> indices) const {
    std::vector<float> rows(indices.size() * width());
    for (std::size_t r = 0; r < indices.size(); ++r)
        encode(space, indices[r], std::span<float>(rows).subspan(r * width(), width()));
    return rows;
}

} // namespace ts
