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

std::optional<SearchSpace::Index> MemoizedSearch::freshCandidate() {
    auto drawn = drawUnproposed(1);
    if (drawn.empty())
        return std::nullopt;
    m_reserved.insert(drawn.front());
    return drawn.front();
}

void MemoizedSearch::onReset() {
    m_wanted.clear();
    m_nextWanted = 0;
    m_reserved.clear();
    restartSearch();
}

void MemoizedSearch::onObserve(std::span<const Trial> trials) {
    // Trials told without being proposed (a resumed session) must not be proposed later (the base marks
    // them proposed), nor handed out as set-aside candidates.
    for (const Trial& trial : trials)
        m_reserved.erase(trial.index);
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
