#pragma once

#include "models/CostModel.h"
#include "models/EncodedConfigs.h"
#include "models/FeatureEncoder.h"
#include "models/XgbSettings.h"
#include "models/XgbValidityModel.h"
#include "strategies/StrategyBase.h"

#include <map>
#include <memory>
#include <unordered_set>

namespace ts {

// What the model-guided strategies (`xgb`, `evolutionary`) share: their common options, an adaptive random
// start that turns validity-guided once both outcomes have been seen, the validity model (learned
// restrictions and an XGBoost classifier), their performance models (made by the context's cost model
// factory, XGBoost by default, and used only through CostModel), batches that grow with the evidence, batch
// picks kept apart (pickDiverse), and the predictions recorded for the trials.
class ModelStrategyBase : public StrategyBase {
public:
    // Start-up draws, then (after retraining when there are new observations; with configs in flight, once
    // there are batchSize() of them, whatever maxCount) a batch of batchSize() up to maxCount, cut to option
    // in_flight_max with configs in flight, from proposeBatch(), topped up with random unproposed configs
    // when it comes out short.
    std::vector<SearchSpace::Index> propose(std::size_t maxCount) final;
    std::optional<double> prediction(SearchSpace::Index index) const override;
    bool usesCostModel() const final { return true; }
    // Learned from every trial observed so far (when the `restrictions` option is on).
    std::vector<std::string> learnedRestrictions() const override;

protected:
    // The options of this base, to be joined with a strategy's own.
    static std::vector<OptionSpec> commonOptions();
    // Expected improvement of N(mean, sd) below `best` (log time).
    static double expectedImprovement(double mean, double sd, double best);

    // The context's transfer prior for strategies that use one (usesPrior()), else null; null too once
    // dropPrior() found it misleading here (the rest of the run is a cold one from the trials so far).
    const TransferPrior* prior() const { return usesPrior() && !m_priorDropped ? transferPrior() : nullptr; }
    // The prior was judged (judgePrior): kept for the rest of the run, or dropped (a cold run from here on).
    void judgePrior(bool keep) {
        m_priorJudged = true;
        m_priorDropped = !keep;
    }
    bool priorJudged() const { return m_priorJudged; }
    // Until the prior is judged, every second proposal of a warm start is a probe (at most kMaxPriorProbes):
    // a random config, the likeliest valid of a few by this device's own validity model (likelyValidDraws),
    // so that what the prior picks can be held against what chance finds where the configs run.
    static constexpr std::size_t kMaxPriorProbes = 12;
    bool isProbe(SearchSpace::Index index) const { return m_probes.contains(index); }
    // observed() without a dropped prior's picks (a warm start's proposals other than the probes, before it
    // was judged): what a cold run would learn from; observed() while the prior holds or where there is none.
    std::vector<Trial> withoutPriorPicks() const;

    // Called at the end of reset, after the validity model exists.
    virtual void onModelReset() {}
    // Retrains the strategy's models on observed(); called only when there are new observations.
    virtual void retrain() = 0;
    // Up to `count` unproposed configs chosen with the models (past the start-up, a best trial exists).
    virtual std::vector<SearchSpace::Index> proposeBatch(std::size_t count) = 0;

    // Start-up draws are due while too few configs (or too few Ok ones) were measured.
    bool inStartup() const;
    // Random draws for the start-up; each is the likeliest valid of a few random candidates once the
    // classifier can be trained, so a mostly invalid space does not eat the start-up budget.
    std::vector<SearchSpace::Index> startupDraws(std::size_t maxCount);
    // `count` random draws, each the likeliest valid of a few random candidates by the validity model as it
    // stands (uniform until both outcomes were seen).
    std::vector<SearchSpace::Index> likelyValidDraws(std::size_t count);
    // observations / batch_growth, between 1 and batch_max (and at most sequentialLimit()): one process's
    // batch at this point. With configs in flight, observations / in_flight_batch_growth: each measuring rank
    // holds a batch, so smaller batches keep the configs out (picked without the results still to come)
    // nearer one process's.
    std::size_t batchSize() const;
    // The largest batch one process (nothing in flight) proposes at this point, whatever batch_growth says:
    // a strategy's phase that refits after every few results.
    virtual std::size_t sequentialLimit() const { return SIZE_MAX; }
    // How many times the models were retrained: a proposal asked for again at the same count comes from
    // models that have heard nothing new.
    std::uint64_t trainings() const { return m_trainings; }

    // Model settings from the options, with a fresh seed from the strategy's rng.
    XgbSettings modelSettings();
    // Member `member` of an ensemble of `members` performance models, from the context's factory (XGBoost
    // with modelSettings() when it has none), with a fresh seed from the strategy's rng.
    std::unique_ptr<CostModel> makeCostModel(std::size_t member, std::size_t members);
    // Encodes the configs for the validity model, and offers the matrix to the default cost models, which
    // then predict these configs without encoding them again.
    std::shared_ptr<const XgbMatrix> encode(std::span<const SearchSpace::Index> configs) const;
    // Offers configs encoded earlier (by encode()) to the default cost models again.
    void reuse(std::span<const SearchSpace::Index> configs, std::shared_ptr<const XgbMatrix> features) const {
        m_encoded->set(configs, std::move(features));
    }
    XgbValidityModel& validity() { return *m_validity; }
    const XgbValidityModel& validity() const { return *m_validity; }
    int threads() const { return m_threads; }
    // Fills one batch slot, epsilon-greedy: with probability `epsilon` a random unproposed config, otherwise
    // `index` (unless it was proposed before), recording its predicted time when there is one. True when
    // `index` was taken.
    bool fillSlot(std::vector<SearchSpace::Index>& batch, SearchSpace::Index index,
                  std::optional<double> predictedMs);
    // Fills one batch slot with `index` unless it was proposed before, recording its predicted time when
    // there is one (fillSlot without the epsilon). True when `index` was taken.
    bool takeSlot(std::vector<SearchSpace::Index>& batch, SearchSpace::Index index,
                  std::optional<double> predictedMs);
    // A batch of up to `count` from `ranked` (best first, with their predicted times), slot by slot through
    // fillSlot: a first pass keeps the picks at least `distance` parameters apart (Hamming distance), a
    // second fills what that left open.
    std::vector<SearchSpace::Index> pickDiverse(std::span<const SearchSpace::Index> ranked,
                                                std::span<const std::optional<double>> predictedMs,
                                                std::size_t count, std::size_t distance);

private:
    void onReset() final;
    void onObserve(std::span<const Trial> trials) final;
    // Draws are guided by validity once both outcomes were seen (in a domain large enough to choose in).
    bool guidedDraws() const;

    std::unique_ptr<XgbValidityModel> m_validity;
    std::shared_ptr<const ConfigFeatureTable> m_features; // the context's, when option `hardware` is on
    FeatureEncoder m_encoder;
    std::shared_ptr<EncodedConfigs> m_encoded;
    std::size_t m_okCount = 0;
    bool m_priorDropped = false;
    bool m_priorJudged = false;
    std::unordered_set<SearchSpace::Index> m_probes;
    std::unordered_set<SearchSpace::Index> m_priorPicks;
    int m_threads = 1;
    bool m_stale = true;
    std::uint64_t m_trainings = 0;
    std::size_t m_observedAtTraining = 0; // observed().size() at the last retrain
    std::map<SearchSpace::Index, double> m_predictions;
};

} // namespace ts
