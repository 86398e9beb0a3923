#pragma once

#include "space/Parameter.h"
#include "space/SpaceMode.h"
#include "space/Value.h"

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace ts {

// A tuning space: parameters, constraints and the enumerated set of valid configs. A concrete value type.
//
// Every config of the cartesian product has an Index: mixed radix over the parameters' value positions,
// the last parameter varying fastest (the order of itertools.product, i.e. Kernel Tuner's brute force).
// The valid set is kept as a sorted vector of indices.
class SearchSpace {
public:
    using Index = std::uint64_t;

    SearchSpace() = default;

    // Parses the constraints (Python-like syntax, see Expression) and enumerates the valid configs.
    // Throws Error when a constraint does not parse, names an unknown parameter, cannot be evaluated at some
    // config of the product (division by zero raises, as in Python), or no config satisfies them.
    SearchSpace(std::vector<Parameter> parameters, std::vector<std::string> constraints);

    // A space whose valid set is given explicitly (replay datasets: the configs that were measured).
    // Indices need not be sorted or unique.
    static SearchSpace fromValidSet(std::vector<Parameter> parameters, std::vector<Index> validIndices);

    const std::vector<Parameter>& parameters() const { return m_parameters; }
    const std::vector<std::string>& constraints() const { return m_constraints; }
    std::size_t dimension() const { return m_parameters.size(); }
    std::optional<std::size_t> parameterIndex(const std::string& name) const;

    Index productSize() const { return m_productSize; }
    Index validCount() const { return m_valid.size(); }
    const std::vector<Index>& validIndices() const { return m_valid; }
    bool isValid(Index index) const;

    // Value positions per parameter <-> index.
    std::vector<std::uint32_t> digits(Index index) const;
    Index indexOfDigits(std::span<const std::uint32_t> digits) const;

    Config config(Index index) const;
    // Index of a config whose values all appear in their parameters' lists; nullopt otherwise.
    std::optional<Index> indexOf(const Config& config) const;

    // Kernel Tuner cache key: the values joined by commas in parameter order ("16,16,32,8").
    std::string key(Index index) const;
    std::optional<Index> indexOfKey(const std::string& key) const;

    // Neighbours of a config. In Constrained mode only valid neighbours are returned. Sorted by index.
    std::vector<Index> neighbours(Index index, Neighbourhood kind, SpaceMode mode) const;

    // The candidates a strategy sees: Constrained -> the valid set, Product -> the whole product.
    Index domainSize(SpaceMode mode) const;
    Index domainAt(SpaceMode mode, Index position) const;

    // Uniform sample of min(count, domainSize) distinct candidates of the domain, deterministic for the rng.
    std::vector<Index> sample(std::size_t count, SpaceMode mode, std::mt19937_64& rng) const;

private:
    // Checks the parameters and fills the strides, the product size and the lookup tables.
    void initialise();

    std::vector<Parameter> m_parameters;
    std::vector<std::string> m_constraints;
    std::vector<Index> m_strides; // m_strides[i] = product of the sizes of parameters after i
    Index m_productSize = 0;
    std::vector<Index> m_valid; // sorted
    // Per parameter: toString(value) -> position in its list, for indexOfKey.
    std::vector<std::unordered_map<std::string, std::uint32_t>> m_keyPositions;
};

} // namespace ts
