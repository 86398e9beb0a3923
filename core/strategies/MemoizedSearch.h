#pragma once

#include "strategies/SearchCoroutine.h"
#include "strategies/StrategyBase.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace ts {

// Base of the search algorithms that revisit configs (annealing, genetic, local search). The algorithm is
// written as a coroutine, search(), that co_awaits evaluate() / evaluateAll(): configs already observed are
// answered from memory at once, and only unknown ones are proposed; the coroutine resumes in the next
// propose() once all of them are observed. Invalid configs (not Ok, or outside the domain) count as +inf.
//
// Progress is guaranteed here, not in each algorithm: when the search ends, or waits for configs still in
// flight, proposals fall back to uniform draws; when it looks up kRestartLookups known configs in a row
// without needing a new one, it is started afresh (the memory is kept).
class MemoizedSearch : public StrategyBase {
public:
    std::vector<SearchSpace::Index> propose(std::size_t maxCount) final;

protected:
    using Index = SearchSpace::Index;
    static constexpr double kInvalid = std::numeric_limits<double>::infinity();
    static constexpr std::size_t kRestartLookups = 50000;

    // Awaitable objectives of configs: double for one config, std::vector<double> for several.
    template <typename Result> class Evaluation {
    public:
        Evaluation(MemoizedSearch& owner, std::vector<Index> configs)
            : m_owner(owner), m_configs(std::move(configs)) {}
        bool await_ready() { return m_owner.prepare(m_configs); }
        void await_suspend(std::coroutine_handle<>) noexcept {}
        Result await_resume() const {
            if constexpr (std::is_same_v<Result, double>) {
                return m_owner.objective(m_configs.front());
            } else {
                std::vector<double> out;
                for (Index index : m_configs)
                    out.push_back(m_owner.objective(index));
                return out;
            }
        }

    private:
        MemoizedSearch& m_owner;
        std::vector<Index> m_configs;
    };

    // The algorithm. It may loop forever; it ends (co_return) when freshCandidate() runs dry.
    virtual SearchCoroutine search() = 0;

    Evaluation<double> evaluate(Index index) { return {*this, {index}}; }
    Evaluation<std::vector<double>> evaluateAll(std::vector<Index> indices) {
        return {*this, std::move(indices)};
    }

    // The observed objective (+inf when invalid), or nullopt while the config is not known.
    std::optional<double> known(Index index) const;
    // Number of configs known (observed), a clock that only advances with real evaluations.
    std::size_t knownCount() const { return m_objectives.size(); }
    bool inDomain(Index index) const;

    // A uniformly drawn candidate never proposed, set aside for this search (evaluate it to propose it);
    // nullopt once the whole domain has been proposed.
    std::optional<Index> freshCandidate();
    // A uniformly drawn candidate of the domain, known or not.
    Index randomCandidate();
    // A uniformly drawn neighbour in the domain; the index itself when it has none.
    Index randomNeighbour(Index index, Neighbourhood kind);
    std::vector<Index> neighbours(Index index, Neighbourhood kind) const {
        return space().neighbours(index, kind, mode());
    }

    // Digits (value positions) without allocating.
    std::uint32_t digitOf(Index index, std::size_t parameter) const;
    Index withDigit(Index index, std::size_t parameter, std::uint32_t digit) const;
    std::uint32_t valueCount(std::size_t parameter) const { return m_sizes[parameter]; }
    // The parameters with more than one value, in order: the dimensions a search can move along.
    const std::vector<std::size_t>& tunable() const { return m_tunable; }

    double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng()); }
    std::size_t uniformIndex(std::size_t count) {
        return std::uniform_int_distribution<std::size_t>(0, count - 1)(rng());
    }

private:
    void onReset() final;
    void onObserve(std::span<const Trial> trials) final;
    // True when every config is known (the coroutine goes on); otherwise records them as wanted.
    bool prepare(const std::vector<Index>& configs);
    double objective(Index index) const;
    void restartSearch();

    std::unordered_map<Index, double> m_objectives;
    std::vector<Index> m_wanted;
    std::size_t m_nextWanted = 0;
    std::set<Index> m_reserved; // drawn by freshCandidate, not yet proposed
    std::size_t m_lookups = 0;  // known configs looked up since the last unknown one
    bool m_restart = false;
    std::vector<Index> m_strides;
    std::vector<std::uint32_t> m_sizes;
    std::vector<std::size_t> m_tunable;
    SearchCoroutine m_search;
};

} // namespace ts
