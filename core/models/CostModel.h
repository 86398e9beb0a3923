#pragma once

#include "trial/Trial.h"

#include <span>
#include <string>
#include <vector>

namespace ts {

// A model of a kernel's performance over a space, learned from trials.
//
// update() is given the whole history each time and retrains. predict() returns one value per config in
// milliseconds where the model has a scale (regression), or an order-only score in the same direction
// (lower = predicted faster) for ranking models. predict() may be called from other threads while update()
// runs: implementations predict from a published read-only copy.
class CostModel {
public:
    virtual ~CostModel() = default;
    virtual std::string name() const = 0;
    virtual void update(std::span<const Trial> trials) = 0;
    virtual bool isTrained() const = 0;
    virtual std::vector<double> predict(std::span<const SearchSpace::Index> configs) const = 0;
    virtual std::vector<char> save() const = 0;
    virtual void load(const std::vector<char>& bytes) = 0;
};

} // namespace ts
