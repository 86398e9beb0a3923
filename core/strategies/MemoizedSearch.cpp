#include "strategies/MemoizedSearch.h"

namespace ts {

std::vector<SearchSpace::Index> MemoizedSearch::propose(std::size_t maxCount) {
    std::vector<Index> out;
    if (maxCount == 0)
        return out;
    while (true) {
        for (; m_nextWanted < m_wanted.size() && out.size() < maxCount; ++m_nextWanted) {
            Index index = m_wanted[m_nextWanted];
            if (!known(index) && (m_reserved.erase(index) > 0 || markProposed(index)))
                out.push_back(index);
        }
        if (!out.empty())
            return out;
        if (m_restart)
            restartSearch();
        bool waiting = false;
        for (Index index : m_wanted)
            waiting = waiting || !known(index);
        // Wanted configs still in flight (proposed, not yet observed): draw instead of waiting.
        if (waiting || m_search.done())
            break;
        m_wanted.clear();
        m_nextWanted = 0;
        m_search.resume();
    }
    out = drawUnproposed(maxCount);
    // At the very end, candidates set aside by the search but never asked for.
    while (out.size() < maxCount && !m_reserved.empty()) {
        if (!known(*m_reserved.begin()))
            out.push_back(*m_reserved.begin());
        m_reserved.erase(m_reserved.begin());
    }
    return out;
}

std::optional<double> MemoizedSearch::known(Index index) const {
    if (!inDomain(index))
        return kInvalid;
    auto it = m_objectives.find(index);
    if (it == m_objectives.end())
        return std::nullopt;
    return it->second;
}

bool MemoizedSearch::inDomain(Index index) const {
    return mode() == SpaceMode::Product ? index < space().productSize() : space().isValid(index);
}

std::optional<SearchSpace::Index> MemoizedSearch::freshCandidate() {
    auto drawn = drawUnproposed(1);
    if (drawn.empty())
        return std::nullopt;
    m_reserved.insert(drawn.front());
    return drawn.front();
}

SearchSpace::Index MemoizedSearch::randomCandidate() {
    return space().domainAt(mode(), std::uniform_int_distribution<Index>(0, domainSize() - 1)(rng()));
}

SearchSpace::Index MemoizedSearch::randomNeighbour(Index index, Neighbourhood kind) {
    auto candidates = neighbours(index, kind);
    return candidates.empty() ? index : candidates[uniformIndex(candidates.size())];
}

std::uint32_t MemoizedSearch::digitOf(Index index, std::size_t parameter) const {
    return static_cast<std::uint32_t>((index / m_strides[parameter]) % m_sizes[parameter]);
}

SearchSpace::Index MemoizedSearch::withDigit(Index index, std::size_t parameter, std::uint32_t digit) const {
    return index - digitOf(index, parameter) * m_strides[parameter] + Index{digit} * m_strides[parameter];
}

void MemoizedSearch::onReset() {
    m_objectives.clear();
    m_wanted.clear();
    m_nextWanted = 0;
    m_reserved.clear();
    m_sizes.clear();
    m_strides.clear();
    m_tunable.clear();
    const auto& parameters = space().parameters();
    Index stride = 1;
    m_strides.resize(parameters.size());
    for (std::size_t p = parameters.size(); p-- > 0;) {
        m_strides[p] = stride;
        stride *= parameters[p].values.size();
    }
    for (std::size_t p = 0; p < parameters.size(); ++p) {
        m_sizes.push_back(static_cast<std::uint32_t>(parameters[p].values.size()));
        if (parameters[p].values.size() > 1)
            m_tunable.push_back(p);
    }
    restartSearch();
}

void MemoizedSearch::onObserve(std::span<const Trial> trials) {
    for (const Trial& trial : trials) {
        bool ok = trial.measurement.status == MeasureStatus::Ok;
        m_objectives[trial.index] = ok ? trial.measurement.objective : kInvalid;
        // Trials told without being proposed (a resumed session) must not be proposed later.
        m_reserved.erase(trial.index);
        markProposed(trial.index);
    }
}

bool MemoizedSearch::prepare(const std::vector<Index>& configs) {
    bool all = true;
    for (Index index : configs)
        all = all && known(index).has_value();
    if (all) {
        m_lookups += configs.size();
        if (m_lookups < kRestartLookups)
            return true;
        m_restart = true; // suspend for good; propose() replaces the coroutine
        return false;
    }
    m_lookups = 0;
    m_wanted = configs;
    m_nextWanted = 0;
    return false;
}

double MemoizedSearch::objective(Index index) const {
    return known(index).value_or(kInvalid);
}

void MemoizedSearch::restartSearch() {
    m_restart = false;
    m_lookups = 0;
    m_search = search();
}

} // namespace ts
