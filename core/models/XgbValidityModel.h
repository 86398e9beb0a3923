#pragma once

#include "models/FeatureEncoder.h"
#include "models/XgbModel.h"
#include "session/Trial.h"

namespace ts {

// The probability that a config measures Ok (compiles, runs, is correct, satisfies the hidden restrictions),
// learned from the observed statuses with binary:logistic. Until both outcomes have been seen it answers the
// observed rate for every config.
class XgbValidityModel {
public:
    // The space must outlive the model.
    explicit XgbValidityModel(const SearchSpace& space, XgbSettings settings = {});

    void update(std::span<const Trial> trials);
    // False while it answers the observed rate (one outcome seen, or nothing).
    bool isTrained() const { return !m_constant; }
    std::size_t observations() const { return m_observations; }
    std::vector<double> predict(const XgbMatrix& features) const;
    std::vector<double> predict(std::span<const SearchSpace::Index> configs) const;

private:
    const SearchSpace* m_space;
    FeatureEncoder m_encoder;
    XgbModel m_model;
    double m_rate = 1.0;
    bool m_constant = true;
    std::size_t m_observations = 0;
};

} // namespace ts
