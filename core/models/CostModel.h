#pragma once

#include "trial/Trial.h"

#include <span>
#include <string>
#include <vector>

namespace ts {

// A model of a kernel's performance over a space, learned from trials. The model-guided strategies reach
// their performance models only through this interface (made by the StrategyContext's CostModelFactory), so
// another model can be tried without touching a strategy.
//
// update() is given the whole history each time and retrains. predict() returns one value per config in
// milliseconds where the model has a scale (regression), or an order-only score in the same direction
// (lower = predicted faster) for ranking models; predictLog() is the same prediction on the log scale the
// strategies rank with. predict() and predictLog() may be called from other threads while update() runs:
// implementations predict from a published read-only copy. The models of an ensemble are updated at once,
// each on a thread of its own: instances that share mutable state must guard it.
class CostModel {
public:
    virtual ~CostModel() = default;
    virtual std::string name() const = 0;
    virtual void update(std::span<const Trial> trials) = 0;
    // Learns the residual of the log time over another model's prediction: log(objective) - logOffsets[i]
    // for trials[i]; predictLog() then predicts that residual. By default the same as update() on trials
    // whose objectives are divided by exp(logOffsets[i]).
    virtual void updateResidual(std::span<const Trial> trials, std::span<const double> logOffsets);
    virtual bool isTrained() const = 0;
    virtual std::vector<double> predict(std::span<const SearchSpace::Index> configs) const = 0;
    // The natural log of predict() by default (its negated score for ranking models, which override it).
    virtual std::vector<double> predictLog(std::span<const SearchSpace::Index> configs) const;
    virtual std::vector<char> save() const = 0;
    virtual void load(const std::vector<char>& bytes) = 0;
};

} // namespace ts
