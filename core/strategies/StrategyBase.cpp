#include "strategies/StrategyBase.h"

namespace ts {

void StrategyBase::reset(const StrategyContext& context) {
    StrategyOptions options(name(), optionSpecs(), context.options.values());
    m_context = context;
    m_context.options = std::move(options);
    m_rng.seed(context.seed);
    m_proposed.clear();
    m_swaps.clear();
    m_drawn = 0;
    m_observed.clear();
    m_best.reset();
    m_objectives.clear();
    const auto& parameters = space().parameters();
    m_strides.assign(parameters.size(), 0);
    m_sizes.clear();
    m_tunable.clear();
    Index stride = 1;
    for (std::size_t p = parameters.size(); p-- > 0;) {
        m_strides[p] = stride;
        stride *= parameters[p].values.size();
    }
    for (std::size_t p = 0; p < parameters.size(); ++p) {
        m_sizes.push_back(static_cast<std::uint32_t>(parameters[p].values.size()));
        if (parameters[p].values.size() > 1)
            m_tunable.push_back(p);
    }
    onReset();
}

void StrategyBase::observe(std::span<const Trial> trials) {
    for (const Trial& trial : trials) {
        // A config observed without being proposed here (a resumed session's earlier trials) is never
        // proposed again.
        markProposed(trial.index);
        m_observed.push_back(trial);
        const bool ok = trial.measurement.status == MeasureStatus::Ok;
        m_objectives[trial.index] = ok ? trial.measurement.objective : kInvalid;
        if (!ok)
            continue;
        if (!m_best || trial.measurement.objective < m_observed[*m_best].measurement.objective)
            m_best = m_observed.size() - 1;
    }
    onObserve(trials);
}

std::vector<SearchSpace::Index> StrategyBase::pendingIndices() const {
    std::vector<Index> pending;
    if (pendingCount() == 0)
        return pending;
    for (Index index : m_proposed)
        if (!m_objectives.contains(index))
            pending.push_back(index);
    return pending;
}

bool StrategyBase::markProposed(SearchSpace::Index index) {
    return m_proposed.insert(index).second;
}

SearchSpace::Index StrategyBase::permutationAt(SearchSpace::Index k) {
    auto lookup = [this](SearchSpace::Index position) {
        auto it = m_swaps.find(position);
        return it == m_swaps.end() ? position : it->second;
    };
    std::uniform_int_distribution<SearchSpace::Index> pick(k, domainSize() - 1);
    SearchSpace::Index j = pick(m_rng);
    SearchSpace::Index atJ = lookup(j);
    m_swaps[j] = lookup(k);
    m_swaps.erase(k);
    return atJ;
}

std::vector<SearchSpace::Index> StrategyBase::drawUnproposed(std::size_t count) {
    std::vector<SearchSpace::Index> drawn;
    // Walking one permutation of the domain gives uniform draws without replacement; entries proposed by
    // other means (e.g. a neighbour step) are skipped.
    while (drawn.size() < count && m_drawn < domainSize()) {
        SearchSpace::Index index = space().domainAt(mode(), permutationAt(m_drawn++));
        if (markProposed(index))
            drawn.push_back(index);
    }
    return drawn;
}

std::optional<Trial> StrategyBase::best() const {
    if (!m_best)
        return std::nullopt;
    return m_observed[*m_best];
}

std::optional<double> StrategyBase::known(Index index) const {
    if (!inDomain(index))
        return kInvalid;
    auto it = m_objectives.find(index);
    if (it == m_objectives.end())
        return std::nullopt;
    return it->second;
}

bool StrategyBase::inDomain(Index index) const {
    return mode() == SpaceMode::Product ? index < space().productSize() : space().isValid(index);
}

SearchSpace::Index StrategyBase::randomCandidate() {
    return space().domainAt(mode(), std::uniform_int_distribution<Index>(0, domainSize() - 1)(m_rng));
}

SearchSpace::Index StrategyBase::randomNeighbour(Index index, Neighbourhood kind) {
    auto candidates = neighbours(index, kind);
    return candidates.empty() ? index : candidates[uniformIndex(candidates.size())];
}

std::uint32_t StrategyBase::digitOf(Index index, std::size_t parameter) const {
    return static_cast<std::uint32_t>((index / m_strides[parameter]) % m_sizes[parameter]);
}

SearchSpace::Index StrategyBase::withDigit(Index index, std::size_t parameter, std::uint32_t digit) const {
    return index - digitOf(index, parameter) * m_strides[parameter] + Index{digit} * m_strides[parameter];
}

} // namespace ts
