#pragma once

#include "models/XgbCostModel.h"
#include "models/XgbValidityModel.h"
#include "strategies/StrategyBase.h"

#include <map>
#include <memory>

namespace ts {

// `xgb`: model-guided search. After an adaptive random start (until a few valid configs are found), every
// batch retrains an XGBoost validity classifier on all observed statuses and a small ensemble of XGBoost
// regressors on log time, then proposes the unmeasured candidates with the highest
// P(valid) x expected improvement over the best time so far (mean and spread from the ensemble), with
// epsilon-greedy exploration. Candidates are the whole domain when it is small enough to score at once, and
// otherwise a fresh random pool plus the last shortlist and the neighbours of the best configs. Batches grow
// with the evidence.
class ModelGuidedSearch : public StrategyBase {
public:
    static std::vector<OptionSpec> optionTable();

    std::string name() const override { return "xgb"; }
    std::vector<SearchSpace::Index> propose(std::size_t maxCount) override;
    std::optional<double> prediction(SearchSpace::Index index) const override;

private:
    struct Candidates {
        std::vector<SearchSpace::Index> indices;
        std::unique_ptr<XgbMatrix> features; // null: the whole domain (m_domainFeatures)
    };
    struct Shortlist {
        std::vector<SearchSpace::Index> indices;
        std::vector<double> pValid, meanLog, score;
    };

    void onReset() override;
    void onObserve(std::span<const Trial> trials) override;
    bool inStartup() const;
    std::vector<SearchSpace::Index> startupDraws(std::size_t count);
    void retrain();
    Candidates candidates();
    // The most promising unproposed candidates with their acquisition scores.
    Shortlist shortlist(const Candidates& pool, std::size_t size) const;
    std::vector<SearchSpace::Index> pick(const Shortlist& list, std::size_t count);

    std::unique_ptr<XgbValidityModel> m_validity;
    std::vector<std::unique_ptr<XgbCostModel>> m_ensemble;
    std::unique_ptr<XgbMatrix> m_domainFeatures; // the whole domain, when it is scored at once
    std::vector<SearchSpace::Index> m_domain;
    std::vector<SearchSpace::Index> m_carried;
    std::size_t m_okCount = 0;
    int m_threads = 1;
    bool m_stale = true;
    std::map<SearchSpace::Index, double> m_predictions;
};

} // namespace ts
