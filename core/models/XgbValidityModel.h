#pragma once

#include "models/FeatureEncoder.h"
#include "models/LearnedRestrictions.h"
#include "models/XgbModel.h"
#include "trial/Trial.h"

namespace ts {

// The probability that a config measures Ok (compiles, runs, is correct, satisfies the hidden restrictions),
// With `restrictions` on, divisibility rules learned from the failures (LearnedRestrictions) explain the
// failures they cover, and a binary:logistic classifier learns from the observations they leave; P(valid) is
// the product of the two. Where the classifier has seen only one outcome it answers the observed rate.
class XgbValidityModel {
public:
    // The space must outlive the model. `extra`: feature columns beside the parameters' (FeatureEncoder).
    explicit XgbValidityModel(const SearchSpace& space, XgbSettings settings = {}, bool restrictions = true,
                              std::shared_ptr<const ConfigFeatureTable> extra = nullptr);

    void update(std::span<const Trial> trials);
    // False while it answers the observed rate (one outcome seen, or nothing).
    bool isTrained() const { return !m_constant || !m_restrictions.learned().empty(); }
    std::size_t observations() const { return m_observations; }
    const LearnedRestrictions& restrictions() const { return m_restrictions; }
    // `features` are the encoded `configs`.
    std::vector<double> predict(const XgbMatrix& features, std::span<const SearchSpace::Index> configs) const;
    std::vector<double> predict(std::span<const SearchSpace::Index> configs) const;

private:
    const SearchSpace* m_space;
    FeatureEncoder m_encoder;
    XgbModel m_model;
    LearnedRestrictions m_restrictions;
    bool m_useRestrictions = true;
    double m_rate = 1.0;
    bool m_constant = true;
    std::size_t m_observations = 0;
};

} // namespace ts
