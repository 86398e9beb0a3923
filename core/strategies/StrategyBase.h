#pragma once

#include "strategies/Strategy.h"

#include <optional>
#include <random>
#include <unordered_map>
#include <unordered_set>

namespace ts {

// Helpers every strategy needs over the enumerated domain, so a concrete strategy stays small:
// the context, a seeded rng, the set of configs already proposed, uniform draws of unproposed
// candidates, and the observed trials with the best valid one.
class StrategyBase : public Strategy {
public:
    // Completes the context's options with the defaults of optionSpecs() and validates them (throwing
    // before any state changes), then resets the helpers and calls onReset().
    void reset(const StrategyContext& context) override;
    void observe(std::span<const Trial> trials) override;

protected:
    // Called at the end of reset() and observe() for strategies that keep their own state.
    virtual void onReset() {}
    virtual void onObserve(std::span<const Trial> trials) { (void)trials; }

    const SearchSpace& space() const { return *m_context.space; }
    SpaceMode mode() const { return m_context.mode; }
    // Every option of optionSpecs(), validated.
    const StrategyOptions& options() const { return m_context.options; }
    const TransferPrior* transferPrior() const { return m_context.prior.get(); }
    std::mt19937_64& rng() { return m_rng; }

    SearchSpace::Index domainSize() const { return space().domainSize(mode()); }
    bool isProposed(SearchSpace::Index index) const { return m_proposed.contains(index); }
    std::size_t proposedCount() const { return m_proposed.size(); }
    // Marks the index as proposed; false when it already was.
    bool markProposed(SearchSpace::Index index);

    // Up to count distinct unproposed candidates drawn uniformly from the domain, marked as proposed.
    std::vector<SearchSpace::Index> drawUnproposed(std::size_t count);

    const std::vector<Trial>& observed() const { return m_observed; }
    // The fastest Ok trial observed so far.
    std::optional<Trial> best() const;

private:
    // Position k of a lazily built uniform permutation of the domain (sparse Fisher-Yates).
    SearchSpace::Index permutationAt(SearchSpace::Index k);

    StrategyContext m_context;
    std::mt19937_64 m_rng;
    std::unordered_set<SearchSpace::Index> m_proposed;
    std::unordered_map<SearchSpace::Index, SearchSpace::Index> m_swaps;
    SearchSpace::Index m_drawn = 0;
    std::vector<Trial> m_observed;
    std::optional<std::size_t> m_best;
};

} // namespace ts
