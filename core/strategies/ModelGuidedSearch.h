#pragma once

#include "models/CostModel.h"
#include "models/GaussianProcess.h"
#include "models/XgbMatrix.h"
#include "strategies/ModelStrategyBase.h"

#include <memory>
#include <optional>

namespace ts {

// `xgb`: model-guided search. After an adaptive random start (until a few valid configs are found), every
// batch retrains the validity model (learned divisibility restrictions, and an XGBoost classifier of the
// failures they leave unexplained) and a small ensemble of cost models of log time (the context's, by default
// XGBoost regressors), then proposes the
// unmeasured candidates with the highest P(valid) x expected improvement over the best time so far (mean and
// spread from the ensemble), with epsilon-greedy exploration (and, with option `diversity`, the picks of a
// batch kept apart). Candidates are the whole domain when it is small enough to score at once, and otherwise
// a fresh random pool plus the last shortlist and the neighbours of the best configs. Batches grow with the
// evidence. Cold, until option gp_until's count of configs was measured, every gp_every-th batch is ranked by
// a Gaussian process of log time on the parameters' ranks (GaussianProcess) instead of the ensemble: a
// portfolio of a smooth small-data model and the trees; batches there hold option gp_batch's count at most. A
// batch proposed while others are in flight (an MPI job's ranks) draws its slots at means drawn from the
// ensemble's spread (option `batch_draws`), except a share (option `in_flight_local`) that takes the
// best-scored neighbours of the best config so far.
//
// With a transfer prior (measurements of the same kernel elsewhere) there is no random start: the regressors
// learn the residual of this device's log time over the prior's prediction, the validity classifier's
// answer is blended with the prior's as evidence accumulates, and the configs the prior ranks best join
// every candidate pool.
class ModelGuidedSearch : public ModelStrategyBase {
public:
    static std::vector<OptionSpec> optionTable();
    std::vector<OptionSpec> optionSpecs() const override { return optionTable(); }

    std::string name() const override { return "xgb"; }
    bool usesPrior() const override { return true; }
    // The largest P(valid) x E[max(0, best - T)] over the unproposed entries of the last shortlist, T
    // lognormal with the entry's mean and spread of log time.
    std::optional<double> expectedGain() const override;

private:
    struct Candidates {
        std::vector<SearchSpace::Index> indices;
        std::shared_ptr<const XgbMatrix> features; // null: the whole domain (m_domainFeatures)
    };
    struct Shortlist {
        std::vector<SearchSpace::Index> indices;
        std::vector<double> pValid, baseLog, meanLog, score, spread; // spread: of log time
    };

    void onModelReset() override;
    void retrain() override;
    void trainModels();
    // True (once) when the prior's picks measured no faster here than random probes: the prior is dropped.
    bool priorMisleads();
    // With configs in flight, option in_flight_local's share of the picks from pickNextToBest(); the rest
    // (all of them in one process) from rankedPicks().
    std::vector<SearchSpace::Index> proposeBatch(std::size_t count) override;
    // Up to `count` picks from the ranking of the candidates (the last ranking again when nothing new was
    // heard since it was made), drawn or not (pick).
    std::vector<SearchSpace::Index> rankedPicks(std::size_t count);
    Candidates candidates();
    // The most promising unproposed candidates with their acquisition scores.
    Shortlist shortlist(const Candidates& pool, std::size_t size) const;
    // shortlist() in the Gaussian-process phase: mean and spread of every candidate from the process.
    Shortlist gpShortlist(const Candidates& pool, std::size_t size) const;
    // Cold, before option gp_until's count of configs was measured: the process stands in for the ensemble.
    bool inGpPhase() const;
    // This batch is ranked by the process (option gp_every).
    bool gpRanks() const;
    // Option gp_batch in the Gaussian-process phase (batches of one by default: a refit after every result,
    // as Optuna's GPSampler does), else no limit.
    std::size_t sequentialLimit() const override;
    std::vector<SearchSpace::Index> pick(const Shortlist& list, std::size_t count);
    // Adds the unproposed Hamming neighbour of the best config so far with the best score (the models
    // undrawn), if any is left, to `batch` with its predicted time.
    void pickNextToBest(std::vector<SearchSpace::Index>& batch);
    // What every candidate is ranked by: P(valid) ^ power x expected improvement of log time over the best.
    static double acquisition(double pValid, double power, double meanLog, double sd, double bestLog);
    // Option `batch_draws`: whether this batch's slots are drawn (see drawnOrder).
    bool drawsBatch(std::size_t count) const;
    // `ranked` (the list's positions, best score first) with its first entries re-chosen one at a time, each
    // the best expected improvement at a mean drawn from the ensemble's spread (Thompson-style), so a batch
    // and the configs in flight spread over configs the models are unsure of instead of taking the
    // neighbours of one prediction; with nothing in flight the first stays the best score. The rest follow
    // in ranked order.
    std::vector<std::size_t> drawnOrder(const Shortlist& list, std::vector<std::size_t> ranked,
                                        std::size_t count);
    // What the regressors add to: the prior's log time plus this device's mean residual (0 without a prior).
    std::vector<double> baseLog(std::span<const SearchSpace::Index> indices) const;
    // P(valid) of the candidates (features are theirs): the validity classifier's, blended with the prior's.
    std::vector<double> validityOf(const XgbMatrix& features,
                                   std::span<const SearchSpace::Index> indices) const;

    std::vector<std::unique_ptr<CostModel>> m_ensemble;
    std::unique_ptr<GaussianProcess> m_gp;
    std::shared_ptr<const XgbMatrix> m_domainFeatures; // the whole domain, when it is scored at once
    std::vector<SearchSpace::Index> m_domain;
    std::vector<SearchSpace::Index> m_carried;
    // The last shortlist and the training it was scored with: asked again before anything new is observed
    // (another rank of an MPI job), the next picks come from it instead of scoring the pool again.
    Shortlist m_lastList;
    std::optional<std::uint64_t> m_lastListTraining;
    // The candidates drawn while the models retrained, for the batch that follows.
    std::optional<Candidates> m_nextPool;
    double m_localCredit = 0.0;   // local picks owed (option in_flight_local), carried from ask to ask
    double m_residualShift = 0.0; // mean of log time minus the weighted prior over the Ok trials
    double m_priorWeight = 1.0;   // how much of the prior's prediction the regressors add to
};

} // namespace ts
