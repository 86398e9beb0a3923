#include "strategies/Tpe.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ts {

namespace {

// A round keeps drawing past n_ei_candidates while every draw so far was proposed already, up to this many
// times n_ei_candidates draws, before the caller falls back to a uniform draw.
constexpr std::size_t kDrawsPerCandidate = 8;

// Optuna's default_weights: older observations fade in linearly once there are more than 25.
std::vector<double> recencyWeights(std::size_t count) {
    constexpr std::size_t kFlat = 25;
    std::vector<double> weights(count, 1.0);
    if (count <= kFlat)
        return weights;
    const std::size_t ramp = count - kFlat;
    const double first = 1.0 / static_cast<double>(count);
    for (std::size_t k = 0; k < ramp; ++k)
        weights[k] = ramp == 1
                         ? first
                         : first + (1.0 - first) * static_cast<double>(k) / static_cast<double>(ramp - 1);
    return weights;
}

} // namespace

std::vector<OptionSpec> Tpe::optionTable() {
    return {
        OptionSpec::integer("n_startup_trials", "10", 0, 1e6,
                            "Uniform random configs before the model takes over."),
        OptionSpec::integer("n_ei_candidates", "24", 1, 1e4,
                            "Draws from the good-config density scored per proposal."),
        OptionSpec::real("gamma", "0.1", 0.0, 1.0,
                         "Fraction of the observations in the good group (rounded up)."),
        OptionSpec::integer("gamma_max", "25", 1, 1e6, "Most observations in the good group."),
        OptionSpec::real("prior_weight", "1.0", 0.0, 1e6,
                         "Weight of the prior kernel (uniform-like) in both densities."),
        OptionSpec::boolean(
            "multivariate", "true",
            "Draw and score configs jointly from one good-config kernel instead of per parameter."),
        OptionSpec::boolean("consider_magic_clip", "true",
                            "Floor the Gaussian bandwidths at range / min(100, 1 + kernels)."),
        OptionSpec::boolean("consider_endpoints", "false",
                            "Let the outermost observations' bandwidths reach to the ends of the range."),
        OptionSpec::boolean(
            "log_powers_of_two", "true",
            "Place parameters whose values are all powers of two at log2 of the value instead of "
            "the list position."),
        OptionSpec::choice(
            "invalid", "bad", {"bad", "ignore"},
            "Invalid evaluations: \"bad\" (the worst observations, in g(x)) or \"ignore\" (left out)."),
    };
}

void Tpe::onReset() {
    const StrategyOptions& o = options();
    m_startupTrials = static_cast<std::size_t>(std::max<std::int64_t>(0, o.integer("n_startup_trials")));
    m_candidates = static_cast<std::size_t>(std::max<std::int64_t>(1, o.integer("n_ei_candidates")));
    m_gamma = std::clamp(o.real("gamma"), 0.0, 1.0);
    m_gammaMax = static_cast<std::size_t>(std::max<std::int64_t>(1, o.integer("gamma_max")));
    m_settings.priorWeight = std::max(0.0, o.real("prior_weight"));
    m_settings.multivariate = o.boolean("multivariate");
    m_settings.magicClip = o.boolean("consider_magic_clip");
    m_settings.endpoints = o.boolean("consider_endpoints");
    const bool logPowers = o.boolean("log_powers_of_two");
    m_invalidIsBad = o.text("invalid") == "bad";

    m_axes.clear();
    for (const Parameter& parameter : space().parameters())
        m_axes.push_back(ParzenEstimator::Axis::of(parameter, logPowers));
    m_history.clear();
}

void Tpe::onObserve(std::span<const Trial> trials) {
    for (const Trial& trial : trials) {
        Observation observation;
        observation.number = trial.number;
        observation.digits = space().digits(trial.index);
        observation.ok = trial.measurement.status == MeasureStatus::Ok;
        observation.objective = trial.measurement.objective;
        m_history.push_back(std::move(observation));
    }
}

std::pair<ParzenEstimator, ParzenEstimator> Tpe::buildEstimators() const {
    std::vector<const Observation*> valid;
    std::vector<const Observation*> invalid;
    for (const Observation& observation : m_history)
        (observation.ok ? valid : invalid).push_back(&observation);
    std::stable_sort(valid.begin(), valid.end(), [](const Observation* a, const Observation* b) {
        return a->objective < b->objective || (a->objective == b->objective && a->number < b->number);
    });
    const std::size_t counted = valid.size() + (m_invalidIsBad ? invalid.size() : 0);
    const auto byGamma = static_cast<std::size_t>(std::ceil(m_gamma * static_cast<double>(counted)));
    const std::size_t goodCount = std::min({byGamma, m_gammaMax, valid.size()});

    std::vector<const Observation*> good(valid.begin(),
                                         valid.begin() + static_cast<std::ptrdiff_t>(goodCount));
    std::vector<const Observation*> bad(valid.begin() + static_cast<std::ptrdiff_t>(goodCount), valid.end());
    if (m_invalidIsBad)
        bad.insert(bad.end(), invalid.begin(), invalid.end());

    const auto build = [this](std::vector<const Observation*>& group) {
        // Recency weights follow the evaluation order, as in Optuna.
        std::sort(group.begin(), group.end(),
                  [](const Observation* a, const Observation* b) { return a->number < b->number; });
        std::vector<std::span<const std::uint32_t>> points;
        points.reserve(group.size());
        for (const Observation* observation : group)
            points.emplace_back(observation->digits);
        return ParzenEstimator(m_axes, points, recencyWeights(group.size()), m_settings);
    };
    return {build(good), build(bad)};
}

std::optional<SearchSpace::Index> Tpe::sampleOne(const ParzenEstimator& good, const ParzenEstimator& bad) {
    std::optional<SearchSpace::Index> chosen;
    double chosenScore = -std::numeric_limits<double>::infinity();
    std::size_t drawn = 0;
    const std::size_t maxAttempts = m_candidates * kDrawsPerCandidate;
    for (std::size_t attempt = 0; attempt < maxAttempts && (drawn < m_candidates || !chosen); ++attempt) {
        good.sample(rng(), m_scratch);
        const SearchSpace::Index index = space().indexOfDigits(m_scratch);
        if (!inDomain(index))
            continue;
        ++drawn;
        if (isProposed(index))
            continue;
        const double score = good.logDensity(m_scratch) - bad.logDensity(m_scratch);
        if (!chosen || score > chosenScore) {
            chosen = index;
            chosenScore = score;
        }
    }
    if (chosen)
        markProposed(*chosen);
    return chosen;
}

std::vector<SearchSpace::Index> Tpe::propose(std::size_t maxCount) {
    std::size_t random = proposedCount() < m_startupTrials ? m_startupTrials - proposedCount() : 0;
    if (m_history.empty())
        random = maxCount;
    std::vector<SearchSpace::Index> batch = drawUnproposed(std::min(random, maxCount));
    if (batch.size() >= maxCount || proposedCount() >= domainSize())
        return batch;

    const auto [good, bad] = buildEstimators();
    while (batch.size() < maxCount && proposedCount() < domainSize()) {
        if (std::optional<SearchSpace::Index> index = sampleOne(good, bad)) {
            batch.push_back(*index);
            continue;
        }
        std::vector<SearchSpace::Index> fallback = drawUnproposed(1);
        if (fallback.empty())
            break;
        batch.push_back(fallback.front());
    }
    return batch;
}

} // namespace ts
