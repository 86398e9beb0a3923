#pragma once

#include "strategies/OptionSpec.h"
#include "strategies/StrategyContext.h"
#include "trial/Trial.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ts {

// A search strategy: batched ask (propose) and tell (observe). Strategies never own the loop, so the
// session can pause, cancel and checkpoint between batches. Deterministic for a given seed.
//
// propose() returns at most maxCount product indices from the domain of the context's mode, none of them
// proposed before; an empty result means the strategy has nothing left to propose. observe() receives the
// trials of the configs proposed, in any order, possibly split over several calls.
//
// To write one, derive from a base rather than from this interface (tests/TestStrategies.cpp then checks it
// with every other registered strategy):
// - StrategyBase for strategies that only propose (random_sample, brute_force, tpe): it fills the options'
//   defaults from optionSpecs() once, at reset, and offers the rng, uniform draws, the proposed set, the
//   observed trials with the best one and every observed objective (known()), and index arithmetic;
// - MemoizedSearch for algorithms that revisit configs (the metaheuristics): write search() as a coroutine
//   that co_awaits evaluate(), and known configs are answered from memory;
// - ModelStrategyBase for model-guided strategies (xgb, evolutionary): the start-up draws, the validity
//   model, the performance models from the context's CostModelFactory, batch sizing and diverse picks.
// A strategy reads its options only through StrategyBase::options(), never from the context it was given.
class Strategy {
public:
    virtual ~Strategy() = default;
    virtual std::string name() const = 0;
    // The strategy's option table (the registry lists the same); empty for strategies without options.
    virtual std::vector<OptionSpec> optionSpecs() const { return {}; }
    // Throws Error naming the option when the context's options do not fit optionSpecs(); nothing is
    // proposed or measured before.
    virtual void reset(const StrategyContext& context) = 0;
    virtual std::vector<SearchSpace::Index> propose(std::size_t maxCount) = 0;
    virtual void observe(std::span<const Trial> trials) = 0;
    // True for strategies that start from the context's transfer prior (the others ignore it).
    virtual bool usesPrior() const { return false; }
    // True for strategies whose performance models come from the context's cost model factory (the others
    // ignore it).
    virtual bool usesCostModel() const { return false; }
    // Restrictions the strategy infers from the failed configs it was told of, as constraint expressions a
    // kernel author could add to the space ("MWG % (MDIMC * VWM) == 0"); empty for strategies that learn
    // none.
    virtual std::vector<std::string> learnedRestrictions() const { return {}; }
    // The cost model's prediction (ms, or an order-only score) for a config this strategy just proposed,
    // made before it was measured; nullopt for strategies without a model.
    virtual std::optional<double> prediction(SearchSpace::Index index) const {
        (void)index;
        return std::nullopt;
    }
    // What the strategy's models expect its next trial to gain: the expected improvement (ms) over the best
    // time measured so far of the best config it would propose next, from its last ranking (no retraining:
    // its configs since then left out, the best since then counted); nullopt for strategies without a model
    // and before their first ranking. A workload's scheduler asks it (gradient, forward=model).
    virtual std::optional<double> expectedGain() const { return std::nullopt; }
};

} // namespace ts
