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
    onReset();
}

void StrategyBase::observe(std::span<const Trial> trials) {
    for (const Trial& trial : trials) {
        // A config observed without being proposed here (a resumed session's earlier trials) is never
        // proposed again.
        markProposed(trial.index);
        m_observed.push_back(trial);
        if (trial.measurement.status != MeasureStatus::Ok)
            continue;
        if (!m_best || trial.measurement.objective < m_observed[*m_best].measurement.objective)
            m_best = m_observed.size() - 1;
    }
    onObserve(trials);
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

} // namespace ts
