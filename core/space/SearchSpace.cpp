#include "space/SearchSpace.h"

#include "space/ConstraintProgram.h"
#include "space/Expression.h"
#include "space/ExpressionParser.h"
#include "util/Error.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <unordered_set>

namespace ts {
namespace {

using Index = SearchSpace::Index;

// Depth-first enumeration of the valid configs. Parameters are bound in a permuted order chosen so that
// constraints complete early (and prune whole subtrees); each constraint is checked as soon as its last
// variable is bound. Parameters no constraint names are not searched at all: every valid prefix is combined
// with all their values at the end.
class ValidSetEnumerator {
public:
    ValidSetEnumerator(const std::vector<Parameter>& parameters, const std::vector<Index>& strides,
                       const std::vector<Expression>& constraints)
        : m_parameters(parameters), m_strides(strides), m_constraints(constraints) {}

    std::vector<Index> run() {
        const std::size_t n = m_parameters.size();
        m_digits.assign(n, 0);
        m_slots.assign(n, PythonNumber{});
        m_numbers.resize(n);
        std::vector<bool> numeric(n, true);
        for (std::size_t p = 0; p < n; ++p) {
            for (const auto& value : m_parameters[p].values) {
                if (!isNumeric(value)) {
                    numeric[p] = false;
                    break;
                }
                if (const auto* d = std::get_if<double>(&value)) {
                    m_numbers[p].push_back(PythonNumber::fromDouble(*d));
                } else {
                    m_numbers[p].push_back(PythonNumber::fromInt(static_cast<std::int64_t>(toNumber(value))));
                }
            }
            m_positionOf.emplace(m_parameters[p].name, p);
        }

        // Variables of each constraint as parameter positions; constant constraints are decided now.
        std::vector<std::vector<std::size_t>> variables;
        std::vector<std::size_t> active;
        for (std::size_t c = 0; c < m_constraints.size(); ++c) {
            std::vector<std::size_t> vars;
            for (const auto& name : m_constraints[c].variables()) {
                vars.push_back(m_positionOf.at(name));
            }
            variables.push_back(vars);
            if (vars.empty()) {
                if (!m_constraints[c].test({})) {
                    return {};
                }
            } else {
                active.push_back(c);
            }
        }

        chooseOrder(variables, active);
        m_checks.assign(m_order.size(), {});
        std::vector<std::size_t> levelOf(n, 0);
        for (std::size_t level = 0; level < m_order.size(); ++level) {
            levelOf[m_order[level]] = level;
        }
        m_programs.reserve(active.size());
        for (const auto c : active) {
            std::size_t last = 0;
            for (const auto p : variables[c]) {
                last = std::max(last, levelOf[p]);
            }
            auto program = ConstraintProgram::compile(
                m_constraints[c].root(), [&](std::string_view name) -> std::optional<std::uint32_t> {
                    const auto p = m_positionOf.at(std::string(name));
                    if (!numeric[p]) {
                        return std::nullopt;
                    }
                    return static_cast<std::uint32_t>(p);
                });
            m_programs.push_back(std::move(program));
            m_checks[last].push_back({m_programs.size() - 1, c});
        }

        // Every combination of the unconstrained parameters, as index offsets.
        std::vector<bool> ordered(n, false);
        for (const auto p : m_order) {
            ordered[p] = true;
        }
        m_tail = {0};
        for (std::size_t p = 0; p < n; ++p) {
            if (ordered[p]) {
                continue;
            }
            std::vector<Index> next;
            next.reserve(m_tail.size() * m_parameters[p].values.size());
            for (const auto offset : m_tail) {
                for (std::size_t d = 0; d < m_parameters[p].values.size(); ++d) {
                    next.push_back(offset + d * m_strides[p]);
                }
            }
            m_tail = std::move(next);
        }

        m_lookup = [this](std::string_view name) -> std::optional<Value> {
            const auto it = m_positionOf.find(std::string(name));
            if (it == m_positionOf.end()) {
                return std::nullopt;
            }
            return m_parameters[it->second].values[m_digits[it->second]];
        };

        search(0, 0);
        std::sort(m_valid.begin(), m_valid.end());
        return std::move(m_valid);
    }

private:
    struct Check {
        std::size_t program;
        std::size_t constraint;
    };

    // Greedy: repeatedly take the constraint whose unbound variables span the smallest sub-product, and bind
    // those variables (smallest lists first).
    void chooseOrder(const std::vector<std::vector<std::size_t>>& variables,
                     std::vector<std::size_t> pending) {
        std::vector<bool> bound(m_parameters.size(), false);
        while (!pending.empty()) {
            std::size_t best = 0;
            double bestProduct = std::numeric_limits<double>::infinity();
            std::size_t bestUnbound = 0;
            for (std::size_t k = 0; k < pending.size(); ++k) {
                double product = 1.0;
                std::size_t unbound = 0;
                for (const auto p : variables[pending[k]]) {
                    if (!bound[p]) {
                        product *= static_cast<double>(m_parameters[p].values.size());
                        ++unbound;
                    }
                }
                if (product < bestProduct || (product == bestProduct && unbound < bestUnbound)) {
                    best = k;
                    bestProduct = product;
                    bestUnbound = unbound;
                }
            }
            std::vector<std::size_t> group;
            for (const auto p : variables[pending[best]]) {
                if (!bound[p] && std::find(group.begin(), group.end(), p) == group.end()) {
                    group.push_back(p);
                }
            }
            std::stable_sort(group.begin(), group.end(), [&](std::size_t a, std::size_t b) {
                return m_parameters[a].values.size() < m_parameters[b].values.size();
            });
            for (const auto p : group) {
                bound[p] = true;
                m_order.push_back(p);
            }
            std::erase_if(pending, [&](std::size_t c) {
                return std::all_of(variables[c].begin(), variables[c].end(),
                                   [&](std::size_t p) { return bound[p]; });
            });
        }
    }

    bool passes(const std::vector<Check>& checks) const {
        for (const auto& check : checks) {
            const auto& program = m_programs[check.program];
            const std::optional<bool> fast = program ? program->test(m_slots.data()) : std::nullopt;
            // Where the program cannot decide (Python would raise), the interpreter throws the message.
            const bool ok = fast ? *fast : m_constraints[check.constraint].test(m_lookup);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    void search(std::size_t level, Index partial) {
        if (level == m_order.size()) {
            for (const auto offset : m_tail) {
                m_valid.push_back(partial + offset);
            }
            return;
        }
        const std::size_t p = m_order[level];
        const std::size_t size = m_parameters[p].values.size();
        const bool numeric = m_numbers[p].size() == size;
        const auto& checks = m_checks[level];
        for (std::size_t d = 0; d < size; ++d) {
            m_digits[p] = static_cast<std::uint32_t>(d);
            if (numeric) {
                m_slots[p] = m_numbers[p][d];
            }
            if (passes(checks)) {
                search(level + 1, partial + d * m_strides[p]);
            }
        }
    }

    const std::vector<Parameter>& m_parameters;
    const std::vector<Index>& m_strides;
    const std::vector<Expression>& m_constraints;
    std::unordered_map<std::string, std::size_t> m_positionOf;
    std::vector<std::vector<PythonNumber>> m_numbers; // empty or partial for parameters with a string value
    std::vector<std::size_t> m_order;
    std::vector<std::vector<Check>> m_checks; // per level
    std::vector<std::optional<ConstraintProgram>> m_programs;
    std::vector<Index> m_tail;
    std::vector<std::uint32_t> m_digits;
    std::vector<PythonNumber> m_slots;
    Expression::Lookup m_lookup;
    std::vector<Index> m_valid;
};

bool valuesMatch(const Value& a, const Value& b) {
    if (isNumeric(a) && isNumeric(b)) {
        return toNumber(a) == toNumber(b);
    }
    if (isNumeric(a) || isNumeric(b)) {
        return false;
    }
    return std::get<std::string>(a) == std::get<std::string>(b);
}

} // namespace

SearchSpace::SearchSpace(std::vector<Parameter> parameters, std::vector<std::string> constraints)
    : m_parameters(std::move(parameters)), m_constraints(std::move(constraints)) {
    initialise();
    std::vector<Expression> expressions;
    expressions.reserve(m_constraints.size());
    for (const auto& text : m_constraints) {
        expressions.push_back(Expression::parse(text, "constraint"));
        for (const auto& name : expressions.back().variables()) {
            if (!parameterIndex(name)) {
                throw Error("Constraint \"" + ExpressionParser::excerpt(text) + "\" names \"" + name +
                            "\", which is not a parameter.");
            }
        }
    }
    m_valid = ValidSetEnumerator(m_parameters, m_strides, expressions).run();
    if (m_valid.empty()) {
        throw Error("No configuration satisfies the constraints (" + std::to_string(m_productSize) +
                    " configurations in the product).");
    }
}

SearchSpace SearchSpace::fromValidSet(std::vector<Parameter> parameters, std::vector<Index> validIndices) {
    SearchSpace space;
    space.m_parameters = std::move(parameters);
    space.initialise();
    std::sort(validIndices.begin(), validIndices.end());
    validIndices.erase(std::unique(validIndices.begin(), validIndices.end()), validIndices.end());
    if (!validIndices.empty() && validIndices.back() >= space.m_productSize) {
        throw Error("The valid config index " + std::to_string(validIndices.back()) +
                    " is outside the product of " + std::to_string(space.m_productSize) + " configurations.");
    }
    space.m_valid = std::move(validIndices);
    return space;
}

void SearchSpace::initialise() {
    if (m_parameters.empty()) {
        throw Error("A search space needs at least one parameter.");
    }
    const std::size_t n = m_parameters.size();
    m_strides.assign(n, 1);
    m_keyPositions.assign(n, {});
    constexpr Index kLimit = Index{1} << 62;
    Index product = 1;
    for (std::size_t i = n; i-- > 0;) {
        const Parameter& parameter = m_parameters[i];
        if (parameter.values.empty()) {
            throw Error("Parameter \"" + parameter.name + "\" has no values.");
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (m_parameters[j].name == parameter.name) {
                throw Error("Parameter \"" + parameter.name + "\" is defined twice.");
            }
        }
        m_strides[i] = product;
        if (product > kLimit / parameter.values.size()) {
            throw Error("The search space is too large: its product exceeds 2^62 configurations.");
        }
        product *= parameter.values.size();
        for (std::size_t d = 0; d < parameter.values.size(); ++d) {
            m_keyPositions[i].emplace(toString(parameter.values[d]), static_cast<std::uint32_t>(d));
        }
    }
    m_productSize = product;
}

std::optional<std::size_t> SearchSpace::parameterIndex(const std::string& name) const {
    for (std::size_t i = 0; i < m_parameters.size(); ++i) {
        if (m_parameters[i].name == name) {
            return i;
        }
    }
    return std::nullopt;
}

bool SearchSpace::isValid(Index index) const {
    return std::binary_search(m_valid.begin(), m_valid.end(), index);
}

std::vector<std::uint32_t> SearchSpace::digits(Index index) const {
    std::vector<std::uint32_t> out(m_parameters.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = static_cast<std::uint32_t>((index / m_strides[i]) % m_parameters[i].values.size());
    }
    return out;
}

SearchSpace::Index SearchSpace::indexOfDigits(std::span<const std::uint32_t> digits) const {
    Index index = 0;
    for (std::size_t i = 0; i < digits.size() && i < m_parameters.size(); ++i) {
        index += digits[i] * m_strides[i];
    }
    return index;
}

Config SearchSpace::config(Index index) const {
    Config out;
    out.reserve(m_parameters.size());
    for (std::size_t i = 0; i < m_parameters.size(); ++i) {
        out.push_back(m_parameters[i].values[(index / m_strides[i]) % m_parameters[i].values.size()]);
    }
    return out;
}

std::optional<SearchSpace::Index> SearchSpace::indexOf(const Config& config) const {
    if (config.size() != m_parameters.size()) {
        return std::nullopt;
    }
    Index index = 0;
    for (std::size_t i = 0; i < config.size(); ++i) {
        const auto& values = m_parameters[i].values;
        const auto it = std::find_if(values.begin(), values.end(), [&](const Value& candidate) {
            return valuesMatch(candidate, config[i]);
        });
        if (it == values.end()) {
            return std::nullopt;
        }
        index += static_cast<Index>(it - values.begin()) * m_strides[i];
    }
    return index;
}

std::string SearchSpace::key(Index index) const {
    std::string out;
    for (std::size_t i = 0; i < m_parameters.size(); ++i) {
        if (i) {
            out += ',';
        }
        out += toString(m_parameters[i].values[(index / m_strides[i]) % m_parameters[i].values.size()]);
    }
    return out;
}

std::optional<SearchSpace::Index> SearchSpace::indexOfKey(const std::string& key) const {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto comma = key.find(',', start);
        parts.push_back(key.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) {
            break;
        }
        start = comma + 1;
    }
    if (parts.size() != m_parameters.size()) {
        return std::nullopt;
    }
    Index index = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        std::string part = parts[i];
        const auto first = part.find_first_not_of(' ');
        part = first == std::string::npos ? std::string() : part.substr(first);
        const auto found = m_keyPositions[i].find(part);
        if (found != m_keyPositions[i].end()) {
            index += found->second * m_strides[i];
            continue;
        }
        // "32.0" for an int 32, "1" for True: match numerically.
        char* end = nullptr;
        const double number = std::strtod(part.c_str(), &end);
        if (part.empty() || *end != '\0') {
            return std::nullopt;
        }
        const auto& values = m_parameters[i].values;
        const auto it = std::find_if(values.begin(), values.end(),
                                     [&](const Value& v) { return isNumeric(v) && toNumber(v) == number; });
        if (it == values.end()) {
            return std::nullopt;
        }
        index += static_cast<Index>(it - values.begin()) * m_strides[i];
    }
    return index;
}

std::vector<SearchSpace::Index> SearchSpace::neighbours(Index index, Neighbourhood kind,
                                                        SpaceMode mode) const {
    std::vector<Index> out;
    for (std::size_t i = 0; i < m_parameters.size(); ++i) {
        const Index size = m_parameters[i].values.size();
        const Index digit = (index / m_strides[i]) % size;
        const Index base = index - digit * m_strides[i];
        const auto consider = [&](Index other) {
            const Index candidate = base + other * m_strides[i];
            if (mode == SpaceMode::Product || isValid(candidate)) {
                out.push_back(candidate);
            }
        };
        if (kind == Neighbourhood::Hamming) {
            for (Index other = 0; other < size; ++other) {
                if (other != digit) {
                    consider(other);
                }
            }
        } else {
            if (digit > 0) {
                consider(digit - 1);
            }
            if (digit + 1 < size) {
                consider(digit + 1);
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

SearchSpace::Index SearchSpace::domainSize(SpaceMode mode) const {
    return mode == SpaceMode::Constrained ? static_cast<Index>(m_valid.size()) : m_productSize;
}

SearchSpace::Index SearchSpace::domainAt(SpaceMode mode, Index position) const {
    return mode == SpaceMode::Constrained ? m_valid[position] : position;
}

std::vector<SearchSpace::Index> SearchSpace::sample(std::size_t count, SpaceMode mode,
                                                    std::mt19937_64& rng) const {
    const Index n = domainSize(mode);
    const Index k = std::min<Index>(count, n);
    std::vector<Index> positions;
    positions.reserve(k);
    constexpr Index kMaxShuffle = Index{1} << 24;
    if (k > 0 && k * 4 >= n && n <= kMaxShuffle) {
        // Dense: partial Fisher-Yates over all positions.
        std::vector<Index> all(n);
        std::iota(all.begin(), all.end(), Index{0});
        for (Index i = 0; i < k; ++i) {
            std::uniform_int_distribution<Index> pick(i, n - 1);
            std::swap(all[i], all[pick(rng)]);
        }
        positions.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k));
    } else if (k > 0) {
        // Sparse: Floyd's algorithm draws k distinct positions with k draws, then a shuffle fixes the order.
        std::unordered_set<Index> chosen;
        chosen.reserve(k * 2);
        for (Index j = n - k; j < n; ++j) {
            std::uniform_int_distribution<Index> pick(0, j);
            const Index t = pick(rng);
            const Index value = chosen.insert(t).second ? t : j;
            if (value == j) {
                chosen.insert(j);
            }
            positions.push_back(value);
        }
        std::shuffle(positions.begin(), positions.end(), rng);
    }
    if (mode == SpaceMode::Constrained) {
        for (auto& position : positions) {
            position = m_valid[position];
        }
    }
    return positions;
}

} // namespace ts
