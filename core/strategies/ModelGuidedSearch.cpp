#include "strategies/ModelGuidedSearch.h"

#include "util/Concurrently.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace ts {

namespace {

constexpr double kStageOneSpread = 0.15; // log-time spread assumed before the ensemble is consulted
constexpr std::size_t kShortlistMin = 1024;
constexpr std::size_t kShortlistPerSlot = 32;
constexpr std::size_t kCarried = 256;               // shortlist entries kept as candidates for the next batch
constexpr std::size_t kNeighbourhoodsPerBatch = 10; // best configs whose neighbours join the pool
constexpr std::size_t kPriorFavourites = 1024;      // configs the prior ranks best, kept in every pool
constexpr double kPriorValidityWeight = 50.0;       // observations at which the own classifier counts half
constexpr double kPriorSlopeTrials = 5.0;           // pseudo-trials behind the prior's initial slope of 1
constexpr std::size_t kPriorJudgeTrials = 3;        // Ok picks and Ok probes before the prior is judged
constexpr double kPriorTrustMin = 0.6;              // share of picks faster than probes to keep the prior

// Least-squares slope of y on x, kept within [0, 1] and shrunk towards 1 while there are few points (1 when
// x does not vary).
double priorSlope(const std::vector<double>& x, const std::vector<double>& y) {
    const double n = double(x.size());
    if (x.size() < 2)
        return 1.0;
    double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
    double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
    double sxy = 0.0, sxx = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    if (sxx <= 1e-12)
        return 1.0;
    return (kPriorSlopeTrials + n * std::clamp(sxy / sxx, 0.0, 1.0)) / (kPriorSlopeTrials + n);
}

double logit(double p) {
    p = std::clamp(p, 1e-6, 1.0 - 1e-6);
    return std::log(p / (1.0 - p));
}

} // namespace

std::vector<OptionSpec> ModelGuidedSearch::optionTable() {
    std::vector<OptionSpec> table = commonOptions();
    table.push_back(
        OptionSpec::integer("ensemble", "3", 1, 64, "Regressors whose spread gives the uncertainty"));
    table.push_back(OptionSpec::real(
        "validity_power", "1", 0.0, 100.0,
        "Exponent of P(valid) in the acquisition: higher avoids likely-invalid configs harder"));
    table.push_back(OptionSpec::real("min_spread", "0.01", 1e-6, 10.0,
                                     "Smallest log-time spread assumed by expected improvement"));
    table.push_back(
        OptionSpec::real("prior_halflife", "150", 1e-3, 1e9,
                         "With a transfer prior: Ok trials after which the prior counts half as much"));
    table.push_back(
        OptionSpec::integer("diversity", "0", 0, 1000,
                            "Parameters in which the configs of a batch differ at least, where the "
                            "candidates allow (0: no filter; 2 and 3 measured no better)"));
    table.push_back(OptionSpec::choice(
        "batch_draws", "in_flight", {"in_flight", "always", "off"},
        "Batch slots drawn: each the best expected improvement at a mean drawn from the ensemble's spread "
        "(Thompson-style): every slot of a batch proposed while other configs are in flight (an MPI job's "
        "ranks), the slots after the first of every batch (always), or none (the ranking's top)"));
    table.push_back(OptionSpec::real(
        "in_flight_local", "0.3", 0.0, 1.0,
        "Share of the picks made while other configs are in flight (an MPI job's ranks) that take the "
        "unproposed Hamming neighbour of the best config so far with the best score, undrawn (0: none)"));
    table.push_back(OptionSpec::integer(
        "gp_until", "100", 0, 1e6,
        "Cold: until this many configs were measured, mean and spread of log time come from a Gaussian "
        "process on the parameters' ranks instead of the ensemble (0: the ensemble from the start)"));
    table.push_back(OptionSpec::integer("gp_every", "2", 0, 1e6,
                                        "In the Gaussian-process phase, every this many batches are ranked "
                                        "by the process, the others by the ensemble (1: all, 0: none)"));
    table.push_back(OptionSpec::integer(
        "gp_batch", "1", 0, 1e5,
        "In the Gaussian-process phase, batches of one process hold at most this many configs (1: a refit "
        "after every result; 0: as batch_growth says)"));
    table.push_back(OptionSpec::integer(
        "pool", "16384", 1, 1 << 22,
        "Candidates scored per batch: the whole domain up to this size, else a random pool of this size"));
    return table;
}

void ModelGuidedSearch::onModelReset() {
    m_ensemble.clear();
    auto members = std::max<std::int64_t>(1, options().integer("ensemble"));
    for (std::int64_t k = 0; k < members; ++k)
        m_ensemble.push_back(makeCostModel(static_cast<std::size_t>(k), static_cast<std::size_t>(members)));
    m_domainFeatures.reset();
    m_domain.clear();
    m_carried.clear();
    m_residualShift = 0.0;
    m_priorWeight = 1.0;
    m_lastList = {};
    m_lastListTraining.reset();
    m_nextPool.reset();
    m_localCredit = 0.0;
    m_gp = std::make_unique<GaussianProcess>(space());
}

bool ModelGuidedSearch::inGpPhase() const {
    return !prior() && observed().size() < static_cast<std::size_t>(options().integer("gp_until"));
}

bool ModelGuidedSearch::gpRanks() const {
    const auto every = static_cast<std::uint64_t>(options().integer("gp_every"));
    return inGpPhase() && m_gp->isFitted() && every > 0 && trainings() % every == 0;
}

std::size_t ModelGuidedSearch::sequentialLimit() const {
    const auto limit = static_cast<std::size_t>(options().integer("gp_batch"));
    return inGpPhase() && limit > 0 ? limit : SIZE_MAX;
}

void ModelGuidedSearch::retrain() {
    // The next batch's candidates do not depend on the models: they are drawn and encoded meanwhile (the
    // batch after a retrain always scores a fresh pool).
    if (prior())
        priorMisleads(); // judged before the pool is drawn: a dropped prior's favourites stay out of it
    runConcurrently({[this] { trainModels(); }, [this] { m_nextPool = candidates(); }});
}

void ModelGuidedSearch::trainModels() {
    // The validity model and the regressors learn from the same trials and share nothing else: they train
    // at once, each on a thread of its own (XGBoost seeds its generator per thread and round, so the models
    // are those of a sequential run).
    std::vector<std::function<void()>> training;
    if (!prior()) {
        // A dropped prior's picks are a sample drawn where it was wrong: the models learn from the rest (the
        // probes and what came after), as a cold run's would that drew the probes at its start-up
        // (withoutPriorPicks() is observed() where no prior was dropped).
        auto unbiased = std::make_shared<std::vector<Trial>>(withoutPriorPicks());
        training.push_back([this, unbiased] { validity().update(*unbiased); });
        if (inGpPhase() && options().integer("gp_every") > 0)
            training.push_back([this, unbiased] { m_gp->fit(*unbiased); });
        for (auto& member : m_ensemble)
            training.push_back([unbiased, &member] { member->update(*unbiased); });
        runConcurrently(training);
        return;
    }
    training.push_back([this] { validity().update(observed()); });
    std::vector<SearchSpace::Index> indices;
    for (const Trial& trial : observed())
        indices.push_back(trial.index);
    std::vector<double> raw = prior()->predictLog(indices);
    // Least-squares fit of log time = shift + slope x prior over the Ok trials says how far the prior holds
    // on this device; the slope is shrunk towards 1 while there are few trials, kept within [0, 1], and
    // fades as this device's own evidence grows, so late in a run the models are the cold ones.
    std::vector<double> x, y;
    for (std::size_t i = 0; i < raw.size(); ++i)
        if (const Measurement& m = observed()[i].measurement;
            m.status == MeasureStatus::Ok && m.objective > 0.0) {
            x.push_back(raw[i]);
            y.push_back(std::log(m.objective));
        }
    const double n = double(x.size());
    m_priorWeight = priorSlope(x, y) / (1.0 + n / std::max(1e-9, options().real("prior_halflife")));
    double sum = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
        sum += y[i] - m_priorWeight * x[i];
    m_residualShift = x.empty() ? 0.0 : sum / n;
    std::vector<double> base = baseLog(indices);
    for (auto& member : m_ensemble)
        training.push_back([this, &member, &base] { member->updateResidual(observed(), base); });
    runConcurrently(training);
}

// Judged once, when kPriorJudgeTrials of the prior's picks and of the random probes each are Ok, or when all
// kMaxPriorProbes probes were measured (a mostly invalid space): the share of (pick, probe) pairs in which
// the pick measured faster. Near 1 the prior finds what chance does not; under kPriorTrustMin it points
// elsewhere (its source measured another kernel, or its times lie), and a cold search does better than one
// that follows it. With no Ok probe among them all, the prior is kept if one of its picks ran (chance found
// nothing valid, the prior did); with no Ok pick, it is dropped. True when the prior is dropped.
bool ModelGuidedSearch::priorMisleads() {
    if (priorJudged())
        return false;
    std::vector<double> picks, probes;
    std::size_t probesMeasured = 0;
    for (const Trial& trial : observed()) {
        probesMeasured += isProbe(trial.index);
        if (const Measurement& m = trial.measurement; m.status == MeasureStatus::Ok && m.objective > 0.0)
            (isProbe(trial.index) ? probes : picks).push_back(m.objective);
    }
    const bool enough = picks.size() >= kPriorJudgeTrials && probes.size() >= kPriorJudgeTrials;
    if (!enough && probesMeasured < kMaxPriorProbes)
        return false;
    bool keep = !picks.empty();
    if (!picks.empty() && !probes.empty()) {
        double faster = 0.0;
        for (double pick : picks)
            for (double probe : probes)
                faster += pick < probe ? 1.0 : pick == probe ? 0.5 : 0.0;
        keep = faster / double(picks.size() * probes.size()) >= kPriorTrustMin;
    }
    judgePrior(keep);
    return !keep;
}

std::vector<double> ModelGuidedSearch::baseLog(std::span<const SearchSpace::Index> indices) const {
    if (!prior())
        return std::vector<double>(indices.size(), 0.0);
    std::vector<double> base = prior()->predictLog(indices);
    for (double& value : base)
        value = m_priorWeight * value + m_residualShift;
    return base;
}

std::vector<double> ModelGuidedSearch::validityOf(const XgbMatrix& features,
                                                  std::span<const SearchSpace::Index> indices) const {
    if (!prior())
        return validity().predict(features, indices);
    std::vector<double> p = prior()->predictValid(indices);
    if (!validity().isTrained())
        return p;
    std::vector<double> own = validity().predict(features, indices);
    double n = double(validity().observations());
    double weight = n / (n + kPriorValidityWeight);
    for (std::size_t i = 0; i < p.size(); ++i)
        p[i] = 1.0 / (1.0 + std::exp(-((1.0 - weight) * logit(p[i]) + weight * logit(own[i]))));
    return p;
}

ModelGuidedSearch::Candidates ModelGuidedSearch::candidates() {
    const auto poolSize = static_cast<SearchSpace::Index>(options().integer("pool"));
    if (domainSize() <= poolSize) {
        if (!m_domainFeatures) {
            m_domain.resize(domainSize());
            for (SearchSpace::Index i = 0; i < domainSize(); ++i)
                m_domain[i] = space().domainAt(mode(), i);
            m_domainFeatures = encode(m_domain);
        }
        reuse(m_domain, m_domainFeatures);
        return {m_domain, nullptr};
    }
    // Larger domains: a fresh random pool, the previous shortlist and the Hamming neighbours of the best
    // observed configs, so good regions found earlier stay in view.
    std::vector<SearchSpace::Index> pool = m_carried;
    if (prior())
        for (std::size_t i = 0; i < std::min(kPriorFavourites, prior()->favourites().size()); ++i)
            if (SearchSpace::Index index = prior()->favourites()[i]; !isProposed(index) && inDomain(index))
                pool.push_back(index);
    std::uniform_int_distribution<SearchSpace::Index> pickPosition(0, domainSize() - 1);
    for (SearchSpace::Index i = 0; i < poolSize; ++i) {
        SearchSpace::Index index = space().domainAt(mode(), pickPosition(rng()));
        if (!isProposed(index))
            pool.push_back(index);
    }
    std::vector<const Trial*> ok;
    for (const Trial& trial : observed())
        if (trial.measurement.status == MeasureStatus::Ok)
            ok.push_back(&trial);
    std::sort(ok.begin(), ok.end(), [](const Trial* a, const Trial* b) {
        return a->measurement.objective != b->measurement.objective
                   ? a->measurement.objective < b->measurement.objective
                   : a->index < b->index;
    });
    for (std::size_t i = 0; i < std::min<std::size_t>(ok.size(), kNeighbourhoodsPerBatch); ++i)
        for (SearchSpace::Index n : space().neighbours(ok[i]->index, Neighbourhood::Hamming, mode()))
            if (!isProposed(n))
                pool.push_back(n);
    std::sort(pool.begin(), pool.end());
    pool.erase(std::unique(pool.begin(), pool.end()), pool.end());
    std::shared_ptr<const XgbMatrix> features = encode(pool);
    return {std::move(pool), std::move(features)};
}

ModelGuidedSearch::Shortlist ModelGuidedSearch::shortlist(const Candidates& pool, std::size_t size) const {
    if (gpRanks())
        return gpShortlist(pool, size);
    const XgbMatrix& features = pool.features ? *pool.features : *m_domainFeatures;
    const double power = options().real("validity_power");
    // Stage one scores every candidate with the validity model and one regressor and a fixed spread.
    // The models predict at once, each on a thread of its own (as they train).
    const bool trained = m_ensemble.front()->isTrained();
    std::vector<double> pValid, residual;
    runConcurrently({[&] { pValid = validityOf(features, pool.indices); },
                     [&] {
                         if (trained)
                             residual = m_ensemble.front()->predictLog(pool.indices);
                     }});
    std::vector<double> base = baseLog(pool.indices);
    std::vector<double> mean = base;
    for (std::size_t i = 0; i < residual.size(); ++i)
        mean[i] += residual[i];
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < pool.indices.size(); ++i)
        if (!isProposed(pool.indices[i]))
            order.push_back(i);
    // Before anything valid was measured (with a prior only) the best predicted time stands in for the best.
    double bestLog = best() ? std::log(best()->measurement.objective) : 0.0;
    if (!best() && !order.empty())
        bestLog = mean[*std::min_element(order.begin(), order.end(),
                                         [&](std::size_t a, std::size_t b) { return mean[a] < mean[b]; })];
    std::vector<double> score(pool.indices.size());
    for (std::size_t i : order)
        score[i] = acquisition(pValid[i], power, mean[i], kStageOneSpread, bestLog);
    size = std::min(size, order.size());
    std::partial_sort(order.begin(), order.begin() + size, order.end(), [&](std::size_t a, std::size_t b) {
        return score[a] != score[b] ? score[a] > score[b] : pool.indices[a] < pool.indices[b];
    });
    order.resize(size);
    Shortlist list;
    for (std::size_t i : order) {
        list.indices.push_back(pool.indices[i]);
        list.pValid.push_back(pValid[i]);
        list.baseLog.push_back(base[i]);
        list.meanLog.push_back(mean[i]);
    }
    // Stage two: the whole ensemble on the shortlist gives a mean and a spread.
    std::vector<double> squares(size);
    for (std::size_t i = 0; i < size; ++i)
        squares[i] = list.meanLog[i] * list.meanLog[i];
    if (trained && m_ensemble.size() > 1 && size > 0) {
        encode(list.indices); // once for the members below
        std::vector<std::vector<double>> predictions(m_ensemble.size());
        std::vector<std::function<void()>> predicting;
        for (std::size_t k = 1; k < m_ensemble.size(); ++k)
            predicting.push_back([&, k] { predictions[k] = m_ensemble[k]->predictLog(list.indices); });
        runConcurrently(predicting);
        for (std::size_t k = 1; k < m_ensemble.size(); ++k) {
            for (std::size_t i = 0; i < size; ++i) {
                double value = list.baseLog[i] + predictions[k][i];
                list.meanLog[i] += value;
                squares[i] += value * value;
            }
        }
    }
    const double members = trained ? static_cast<double>(m_ensemble.size()) : 1.0;
    // Without a trained regressor (a prior and under two Ok trials) the prior's own spread is unknown: the
    // stage-one spread stands in.
    const double floor = trained ? options().real("min_spread") : kStageOneSpread;
    list.score.resize(size);
    list.spread.resize(size);
    for (std::size_t i = 0; i < size; ++i) {
        double m = list.meanLog[i] / members;
        double variance = std::max(0.0, squares[i] / members - m * m);
        // A floor on the spread keeps a little exploration where the ensemble agrees.
        double sd = std::sqrt(variance + floor * floor);
        list.meanLog[i] = m;
        list.spread[i] = sd;
        list.score[i] = acquisition(list.pValid[i], power, m, sd, bestLog);
    }
    return list;
}

ModelGuidedSearch::Shortlist ModelGuidedSearch::gpShortlist(const Candidates& pool, std::size_t size) const {
    const XgbMatrix& features = pool.features ? *pool.features : *m_domainFeatures;
    const double power = options().real("validity_power");
    const double floor = options().real("min_spread");
    std::vector<SearchSpace::Index> open;
    for (SearchSpace::Index index : pool.indices)
        if (!isProposed(index))
            open.push_back(index);
    std::vector<double> pValid, meanLog, sdLog;
    runConcurrently(
        {[&] { pValid = validityOf(features, pool.indices); }, [&] { m_gp->predict(open, meanLog, sdLog); }});
    const double bestLog = std::log(best()->measurement.objective);
    std::vector<double> valid, spread, score; // per open candidate
    for (std::size_t i = 0; i < pool.indices.size(); ++i) {
        if (isProposed(pool.indices[i]))
            continue;
        const std::size_t o = valid.size();
        valid.push_back(pValid[i]);
        spread.push_back(std::sqrt(sdLog[o] * sdLog[o] + floor * floor));
        score.push_back(acquisition(pValid[i], power, meanLog[o], spread[o], bestLog));
    }
    std::vector<std::size_t> order(open.size());
    std::iota(order.begin(), order.end(), 0);
    size = std::min(size, order.size());
    std::partial_sort(order.begin(), order.begin() + size, order.end(), [&](std::size_t a, std::size_t b) {
        return score[a] != score[b] ? score[a] > score[b] : open[a] < open[b];
    });
    Shortlist list;
    for (std::size_t k = 0; k < size; ++k) {
        const std::size_t o = order[k];
        list.indices.push_back(open[o]);
        list.pValid.push_back(valid[o]);
        list.baseLog.push_back(0.0);
        list.meanLog.push_back(meanLog[o]);
        list.spread.push_back(spread[o]);
        list.score.push_back(score[o]);
    }
    return list;
}

std::vector<SearchSpace::Index> ModelGuidedSearch::pick(const Shortlist& list, std::size_t count) {
    std::vector<std::size_t> order(list.indices.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return list.score[a] > list.score[b]; });
    if (drawsBatch(count) && !order.empty())
        order = drawnOrder(list, std::move(order), count);
    std::vector<SearchSpace::Index> ranked;
    std::vector<std::optional<double>> predicted;
    for (std::size_t i : order) {
        ranked.push_back(list.indices[i]);
        predicted.push_back(best() ? std::optional<double>(std::exp(list.meanLog[i])) : std::nullopt);
    }
    auto distance = static_cast<std::size_t>(std::max<std::int64_t>(0, options().integer("diversity")));
    return pickDiverse(ranked, predicted, count, distance);
}

std::optional<double> ModelGuidedSearch::expectedGain() const {
    const std::optional<Trial> incumbent = best();
    if (!incumbent || !m_lastListTraining || !(incumbent->measurement.objective > 0.0))
        return std::nullopt;
    const double bestMs = incumbent->measurement.objective;
    const double bestLog = std::log(bestMs);
    auto normalCdf = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
    std::optional<double> gain;
    for (std::size_t i = 0; i < m_lastList.indices.size(); ++i) {
        if (isProposed(m_lastList.indices[i]))
            continue;
        // E[max(0, b - T)] for log T ~ N(m, s^2): b Phi(d) - exp(m + s^2 / 2) Phi(d - s), d = (log b - m) /
        // s.
        const double m = m_lastList.meanLog[i];
        const double s = std::max(m_lastList.spread[i], 1e-9);
        const double d = (bestLog - m) / s;
        const double value =
            m_lastList.pValid[i] *
            std::max(0.0, bestMs * normalCdf(d) - std::exp(m + 0.5 * s * s) * normalCdf(d - s));
        gain = std::max(gain.value_or(0.0), value);
    }
    return gain;
}

double ModelGuidedSearch::acquisition(double pValid, double power, double meanLog, double sd,
                                      double bestLog) {
    return std::pow(pValid, power) * expectedImprovement(meanLog, sd, bestLog);
}

bool ModelGuidedSearch::drawsBatch(std::size_t count) const {
    const std::string& when = options().text("batch_draws");
    if (!best() || when == "off")
        return false;
    return when == "in_flight" ? pendingCount() > 0 : count > 1;
}

std::vector<std::size_t> ModelGuidedSearch::drawnOrder(const Shortlist& list, std::vector<std::size_t> ranked,
                                                       std::size_t count) {
    const double bestLog = std::log(best()->measurement.objective);
    const double power = options().real("validity_power");
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<bool> drawn(list.indices.size(), false);
    // With nothing in flight the batch's first pick is the ranking's top; with configs in flight they stand
    // where that pick would, and every slot is drawn.
    std::vector<std::size_t> order;
    if (pendingCount() == 0) {
        order.push_back(ranked.front());
        drawn[ranked.front()] = true;
    }
    // Half a batch more than its slots (at least two), for the picks that pickDiverse passes over.
    const std::size_t slots = std::min(std::max<std::size_t>(count + count / 2, 2), ranked.size());
    while (order.size() < slots) {
        std::size_t chosen = 0;
        double top = -1.0;
        for (std::size_t i = 0; i < list.indices.size(); ++i) {
            if (drawn[i])
                continue;
            const double mean = list.meanLog[i] + list.spread[i] * normal(rng());
            const double score = acquisition(list.pValid[i], power, mean, list.spread[i], bestLog);
            if (score > top) {
                top = score;
                chosen = i;
            }
        }
        drawn[chosen] = true;
        order.push_back(chosen);
    }
    for (std::size_t i : ranked)
        if (!drawn[i])
            order.push_back(i);
    return order;
}

void ModelGuidedSearch::pickNextToBest(std::vector<SearchSpace::Index>& batch) {
    // One process refines around each new best at its next batch: the best config's neighbours join the
    // pool and the undrawn ranking takes them. With configs in flight every slot is drawn, and the draws go
    // to what the models are unsure of, which is rarely next to the best; these picks make up for that.
    std::vector<SearchSpace::Index> around;
    for (SearchSpace::Index n : space().neighbours(best()->index, Neighbourhood::Hamming, mode()))
        if (!isProposed(n))
            around.push_back(n);
    if (around.empty())
        return;
    std::shared_ptr<const XgbMatrix> features = encode(around);
    Shortlist list = shortlist({around, std::move(features)}, around.size());
    if (list.indices.empty())
        return;
    std::size_t top = std::max_element(list.score.begin(), list.score.end()) - list.score.begin();
    takeSlot(batch, list.indices[top], std::exp(list.meanLog[top]));
}

std::vector<SearchSpace::Index> ModelGuidedSearch::proposeBatch(std::size_t count) {
    std::vector<SearchSpace::Index> batch;
    if (pendingCount() > 0 && best()) {
        // The share is kept over the asks, so ranks that ask for one config at a time get it too.
        m_localCredit += options().real("in_flight_local") * double(count);
        for (; m_localCredit >= 1.0 && batch.size() < count; m_localCredit -= 1.0)
            pickNextToBest(batch);
    }
    if (batch.size() < count) {
        std::vector<SearchSpace::Index> ranked = rankedPicks(count - batch.size());
        batch.insert(batch.end(), ranked.begin(), ranked.end());
    }
    return batch;
}

std::vector<SearchSpace::Index> ModelGuidedSearch::rankedPicks(std::size_t count) {
    if (m_lastListTraining == trainings()) {
        // Nothing new was observed since the last batch (it went to another slot): the same ranking's next
        // unproposed entries; the picks keep off the configs in flight as before.
        Shortlist rest;
        for (std::size_t i = 0; i < m_lastList.indices.size(); ++i)
            if (!isProposed(m_lastList.indices[i])) {
                rest.indices.push_back(m_lastList.indices[i]);
                rest.meanLog.push_back(m_lastList.meanLog[i]);
                rest.score.push_back(m_lastList.score[i]);
                rest.pValid.push_back(m_lastList.pValid[i]);
                rest.spread.push_back(m_lastList.spread[i]);
            }
        if (rest.indices.size() >= count)
            return pick(rest, count);
    }
    Candidates pool = m_nextPool ? std::move(*m_nextPool) : candidates();
    m_nextPool.reset();
    // A pick next to the best may have encoded other configs since the pool was encoded.
    reuse(pool.indices, pool.features ? pool.features : m_domainFeatures);
    Shortlist list = shortlist(pool, std::max<std::size_t>(kShortlistMin, kShortlistPerSlot * count));
    std::vector<SearchSpace::Index> proposed = pick(list, count);
    m_carried.assign(list.indices.begin(), list.indices.begin() + std::min(list.indices.size(), kCarried));
    m_lastList = std::move(list);
    m_lastListTraining = trainings();
    return proposed;
}

} // namespace ts
