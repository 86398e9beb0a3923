#pragma once

#include "strategies/OptionSpec.h"
#include "strategies/ParzenEstimator.h"
#include "strategies/StrategyBase.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ts {

// Tree-structured Parzen estimator, after Optuna's TPESampler: random start-up trials, then the observed
// trials are split into a good group (the best gamma(n) = min(ceil(gamma * n), gamma_max)) and a bad one,
// each modelled by a ParzenEstimator (l for good, g for bad). Each proposal is the best not yet proposed of
// n_ei_candidates draws from l by log l(x) - log g(x). A batch is that many independent rounds, so its
// configs differ without a constant liar. Invalid evaluations count as the worst observations unless the
// `invalid` option says to ignore them, as Optuna ignores failed trials. Multivariate by default: averaged
// over nine replayed GEMM, convolution, dedispersion and pnpoly datasets it beat the univariate model at
// every budget from 25 to 400.
class Tpe : public StrategyBase {
public:
    std::string name() const override { return "tpe"; }
    std::vector<SearchSpace::Index> propose(std::size_t maxCount) override;

    static std::vector<OptionSpec> optionTable();
    std::vector<OptionSpec> optionSpecs() const override { return optionTable(); }

private:
    struct Observation {
        std::int64_t number = 0;
        std::vector<std::uint32_t> digits;
        bool ok = false;
        double objective = 0.0;
    };

    void onReset() override;
    void onObserve(std::span<const Trial> trials) override;

    // The good and bad estimators over what has been observed so far.
    std::pair<ParzenEstimator, ParzenEstimator> buildEstimators() const;
    // The best unproposed candidate of one round of draws, marked as proposed; nullopt when the draws found
    // none not proposed already.
    std::optional<SearchSpace::Index> sampleOne(const ParzenEstimator& good, const ParzenEstimator& bad);

    std::vector<ParzenEstimator::Axis> m_axes;
    ParzenEstimator::Settings m_settings;
    std::size_t m_startupTrials = 10;
    std::size_t m_candidates = 24;
    double m_gamma = 0.1;
    std::size_t m_gammaMax = 25;
    bool m_invalidIsBad = true;
    std::vector<Observation> m_history;
    std::vector<std::uint32_t> m_scratch;
};

} // namespace ts
