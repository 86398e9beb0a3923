#pragma once

#include "models/XgbCostModel.h"
#include "strategies/ModelStrategyBase.h"

#include <memory>

namespace ts {

// `xgb`: model-guided search. After an adaptive random start (until a few valid configs are found), every
// batch retrains an XGBoost validity classifier on all observed statuses and a small ensemble of XGBoost
// regressors on log time, then proposes the unmeasured candidates with the highest
// P(valid) x expected improvement over the best time so far (mean and spread from the ensemble), with
// epsilon-greedy exploration. Candidates are the whole domain when it is small enough to score at once, and
// otherwise a fresh random pool plus the last shortlist and the neighbours of the best configs. Batches grow
// with the evidence.
class ModelGuidedSearch : public ModelStrategyBase {
public:
    static std::vector<OptionSpec> optionTable();

    std::string name() const override { return "xgb"; }

private:
    struct Candidates {
        std::vector<SearchSpace::Index> indices;
        std::unique_ptr<XgbMatrix> features; // null: the whole domain (m_domainFeatures)
    };
    struct Shortlist {
        std::vector<SearchSpace::Index> indices;
        std::vector<double> pValid, meanLog, score;
    };

    void onModelReset() override;
    void retrain() override;
    std::vector<SearchSpace::Index> proposeBatch(std::size_t count) override;
    Candidates candidates();
    // The most promising unproposed candidates with their acquisition scores.
    Shortlist shortlist(const Candidates& pool, std::size_t size) const;
    std::vector<SearchSpace::Index> pick(const Shortlist& list, std::size_t count);

    std::vector<std::unique_ptr<XgbCostModel>> m_ensemble;
    std::unique_ptr<XgbMatrix> m_domainFeatures; // the whole domain, when it is scored at once
    std::vector<SearchSpace::Index> m_domain;
    std::vector<SearchSpace::Index> m_carried;
};

} // namespace ts
