#pragma once

#include "strategies/SearchCoroutine.h"
#include "strategies/StrategyBase.h"

#include <optional>
#include <set>
#include <type_traits>
#include <vector>

namespace ts {

// Base of the search algorithms that revisit configs (annealing, genetic, local search). The algorithm is
// written as a coroutine, search(), that co_awaits evaluate() / evaluateAll(): configs already observed are
// answered from memory at once, and only unknown ones are proposed; the coroutine resumes in the next
// propose() once all of them are observed. Invalid configs (not Ok, or outside the domain) count as kInvalid
// (+inf). The memory is the base's known().
//
// Progress is guaranteed here, not in each algorithm: when the search ends, or waits for configs still in
// flight, proposals fall back to uniform draws; when it looks up kRestartLookups known configs in a row
// without needing a new one, it is started afresh (the memory is kept).
class MemoizedSearch : public StrategyBase {
public:
    std::vector<SearchSpace::Index> propose(std::size_t maxCount) final;

protected:
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

    // A uniformly drawn candidate never proposed, set aside for this search (evaluate it to propose it);
    // nullopt once the whole domain has been proposed.
    std::optional<Index> freshCandidate();

private:
    void onReset() final;
    void onObserve(std::span<const Trial> trials) final;
    // True when every config is known (the coroutine goes on); otherwise records them as wanted.
    bool prepare(const std::vector<Index>& configs);
    double objective(Index index) const;
    void restartSearch();

    std::vector<Index> m_wanted;
    std::size_t m_nextWanted = 0;
    std::set<Index> m_reserved; // drawn by freshCandidate, not yet proposed
    std::size_t m_lookups = 0;  // known configs looked up since the last unknown one
    bool m_restart = false;
    SearchCoroutine m_search;
};

} // namespace ts
