#pragma once

#include "strategies/Strategy.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <unordered_map>
#include <unordered_set>

namespace ts {

// Helpers every strategy needs over the enumerated domain, so a concrete strategy stays small (KTT's
// searcher base): the context with its options completed from the table, a seeded rng, the set of configs
// already proposed, uniform draws of unproposed candidates and of neighbours, index arithmetic on the value
// positions, and the observed trials with the best valid one and the objective of every config observed.
class StrategyBase : public Strategy {
public:
    // Completes the context's options with the defaults of optionSpecs() and validates them (throwing
    // before any state changes), then resets the helpers and calls onReset().
    // Final, so that a strategy's options are filled and checked in this one place: strategies set up their
    // own state in onReset() and onObserve().
    void reset(const StrategyContext& context) final;
    void observe(std::span<const Trial> trials) final;

protected:
    using Index = SearchSpace::Index;
    // The objective of a config that is not Ok or lies outside the domain.
    static constexpr double kInvalid = std::numeric_limits<double>::infinity();

    // Called at the end of reset() and observe() for strategies that keep their own state.
    virtual void onReset() {}
    virtual void onObserve(std::span<const Trial> trials) { (void)trials; }

    const SearchSpace& space() const { return *m_context.space; }
    SpaceMode mode() const { return m_context.mode; }
    // Every option of optionSpecs(), validated.
    const StrategyOptions& options() const { return m_context.options; }
    const TransferPrior* transferPrior() const { return m_context.prior.get(); }
    // The context's cost model factory; empty when the context gives none.
    const CostModelFactory& costModelFactory() const { return m_context.costModel; }
    // The context's static features of the configs; null when it gives none.
    const std::shared_ptr<const ConfigFeatureTable>& staticFeatures() const {
        return m_context.staticFeatures;
    }
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
    // The observed objective (kInvalid when not Ok or outside the domain), or nullopt while the config is
    // not known; the last observation of a config counts.
    std::optional<double> known(Index index) const;
    // Number of distinct configs observed: a clock that only advances with real evaluations.
    std::size_t knownCount() const { return m_objectives.size(); }
    // Configs proposed and not heard of yet: those measured elsewhere while the strategy proposes (the
    // batches in flight on an MPI job's ranks). 0 in a single process, which proposes after each result.
    std::size_t pendingCount() const {
        return m_proposed.size() > m_objectives.size() ? m_proposed.size() - m_objectives.size() : 0;
    }
    // Those configs, in no particular order.
    std::vector<Index> pendingIndices() const;
    bool inDomain(Index index) const;

    // A uniformly drawn candidate of the domain, proposed or not.
    Index randomCandidate();
    // A uniformly drawn neighbour in the domain; the index itself when it has none.
    Index randomNeighbour(Index index, Neighbourhood kind);
    std::vector<Index> neighbours(Index index, Neighbourhood kind) const {
        return space().neighbours(index, kind, mode());
    }
    double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(m_rng); }
    std::size_t uniformIndex(std::size_t count) {
        return std::uniform_int_distribution<std::size_t>(0, count - 1)(m_rng);
    }

    // Digits (value positions) without allocating.
    std::uint32_t digitOf(Index index, std::size_t parameter) const;
    Index withDigit(Index index, std::size_t parameter, std::uint32_t digit) const;
    std::uint32_t valueCount(std::size_t parameter) const { return m_sizes[parameter]; }
    // The parameters with more than one value, in order: the dimensions a search can move along.
    const std::vector<std::size_t>& tunable() const { return m_tunable; }

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
    std::unordered_map<Index, double> m_objectives;
    std::vector<Index> m_strides;
    std::vector<std::uint32_t> m_sizes;
    std::vector<std::size_t> m_tunable;
};

} // namespace ts
