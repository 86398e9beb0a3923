#include "strategies/ModelStrategyBase.h"

#include "models/XgbCostModel.h"

#include <algorithm>
#include <cmath>

namespace ts {

namespace {

constexpr std::size_t kStartupChoices = 16; // random candidates per validity-guided start-up draw

std::size_t hamming(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    std::size_t distance = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        distance += a[i] != b[i];
    return distance;
}

} // namespace

std::vector<OptionSpec> ModelStrategyBase::commonOptions() {
    return {
        OptionSpec::integer("startup_valid", "3", 2, 1e6,
                            "Random configs are drawn until this many measured Ok"),
        OptionSpec::integer("startup_min", "5", 0, 1e6, "... and at least this many were evaluated"),
        OptionSpec::integer("batch_max", "8", 1, 1e5, "Largest batch"),
        OptionSpec::integer("batch_growth", "16", 1, 1e6,
                            "Observations per batch slot: batches grow as observations / this"),
        OptionSpec::integer(
            "in_flight_batch_growth", "32", 1, 1e6,
            "Observations per batch slot of a batch proposed while others are in flight "
            "(an MPI job's ranks each hold one): slower growth keeps fewer configs out early"),
        OptionSpec::real("epsilon", "0.05", 0.0, 1.0, "Chance that a batch slot is a random config instead"),
        OptionSpec::integer("rounds", "40", 1, 1e4,
                            "Most boosting rounds per model (early stopping on a held-out slice)"),
        OptionSpec::integer("max_depth", "6", 1, 32, "Depth of the trees"),
        OptionSpec::integer("threads", "1", 1, 1024, "XGBoost threads"),
        OptionSpec::boolean(
            "hardware", "false",
            "Give the models the configs' static hardware features (registers, spills, shared "
            "memory, occupancy and its limiter, waves on the GPU) beside the parameters, where "
            "the session has them (a replay dataset's static profile)"),
        OptionSpec::boolean(
            "restrictions", "true",
            "Learn divisibility restrictions (a % (b * c) == 0 ...) from the failed configs and "
            "avoid breaking them"),
        OptionSpec::integer("in_flight_apart", "2", 0, 64,
                            "First choice of a batch: picks that differ from every config in flight (an MPI "
                            "job's other batches) in at least this many parameters (0: none kept apart)"),
        OptionSpec::integer("in_flight_max", "0", 0, 1e6,
                            "A batch proposed while others are in flight (an MPI job's) is cut so that at "
                            "most this many configs are in flight, but to no fewer than 1 (0: no cap)"),
    };
}

double ModelStrategyBase::expectedImprovement(double mean, double sd, double best) {
    double z = (best - mean) / sd;
    double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
    double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
    return (best - mean) * cdf + sd * pdf;
}

XgbSettings ModelStrategyBase::modelSettings() {
    XgbSettings settings;
    settings.rounds = static_cast<int>(options().integer("rounds"));
    settings.maxDepth = static_cast<int>(options().integer("max_depth"));
    settings.threads = static_cast<int>(options().integer("threads"));
    settings.seed = rng()();
    return settings;
}

std::unique_ptr<CostModel> ModelStrategyBase::makeCostModel(std::size_t member, std::size_t members) {
    if (!costModelFactory()) {
        XgbSettings settings = modelSettings();
        return XgbCostModel::factory(settings,
                                     m_encoded)({&space(), settings.seed, member, members, m_features});
    }
    return costModelFactory()({&space(), rng()(), member, members, m_features});
}

std::shared_ptr<const XgbMatrix>
ModelStrategyBase::encode(std::span<const SearchSpace::Index> configs) const {
    std::vector<float> rows = m_encoder.encode(space(), configs);
    auto features = std::make_shared<const XgbMatrix>(rows, configs.size(), m_encoder.width(), m_threads);
    m_encoded->set(configs, features);
    return features;
}

void ModelStrategyBase::onReset() {
    XgbSettings settings = modelSettings();
    m_threads = settings.threads;
    m_features = options().boolean("hardware") ? staticFeatures() : nullptr;
    m_validity =
        std::make_unique<XgbValidityModel>(space(), settings, options().boolean("restrictions"), m_features);
    m_encoder = FeatureEncoder(space(), m_features);
    m_encoded = std::make_shared<EncodedConfigs>();
    m_okCount = 0;
    m_priorDropped = false;
    m_priorJudged = false;
    m_probes.clear();
    m_priorPicks.clear();
    m_stale = true;
    m_observedAtTraining = 0;
    m_predictions.clear();
    onModelReset();
}

void ModelStrategyBase::onObserve(std::span<const Trial> trials) {
    for (const Trial& trial : trials)
        m_okCount += trial.measurement.status == MeasureStatus::Ok;
    m_stale = true;
}

std::vector<SearchSpace::Index> ModelStrategyBase::propose(std::size_t maxCount) {
    if (maxCount == 0)
        return {};
    if (inStartup())
        return startupDraws(maxCount);
    const std::size_t fullBatch = batchSize();
    std::size_t count = std::min(fullBatch, maxCount);
    // With configs in flight (an MPI job's other batches), the models are refitted once they have heard as
    // many new results as a batch holds (however few configs this ask is for), so as often per result as in
    // one process; until then further asks are answered from the models as they are. One process has
    // nothing in flight when it proposes.
    const std::size_t pending = pendingCount();
    const bool fewNews =
        pending > 0 && m_trainings > 0 && observed().size() < m_observedAtTraining + fullBatch;
    if (m_stale && !fewNews) {
        retrain();
        m_stale = false;
        ++m_trainings;
        m_observedAtTraining = observed().size();
    }
    if (const auto cap = static_cast<std::size_t>(options().integer("in_flight_max")); cap > 0 && pending > 0)
        count = std::min(count, cap > pending ? cap - pending : std::size_t{1});
    // A warm start's probes: proposal numbers 1, 3, ... (counting from 0) until the prior is judged.
    std::size_t probes = 0;
    if (prior() && !m_priorJudged)
        for (std::size_t n = observed().size() + pending; n < observed().size() + pending + count; ++n)
            probes += n % 2 == 1 && m_probes.size() + probes < kMaxPriorProbes;
    std::vector<SearchSpace::Index> batch = proposeBatch(count - probes);
    if (prior() && !m_priorJudged)
        m_priorPicks.insert(batch.begin(), batch.end());
    for (SearchSpace::Index index : likelyValidDraws(probes)) {
        m_probes.insert(index);
        batch.push_back(index);
    }
    if (batch.size() < count) {
        auto random = drawUnproposed(count - batch.size());
        batch.insert(batch.end(), random.begin(), random.end());
    }
    return batch;
}

bool ModelStrategyBase::fillSlot(std::vector<SearchSpace::Index>& batch, SearchSpace::Index index,
                                 std::optional<double> predictedMs) {
    if (std::bernoulli_distribution(options().real("epsilon"))(rng())) {
        auto random = drawUnproposed(1);
        batch.insert(batch.end(), random.begin(), random.end());
        return false;
    }
    return takeSlot(batch, index, predictedMs);
}

bool ModelStrategyBase::takeSlot(std::vector<SearchSpace::Index>& batch, SearchSpace::Index index,
                                 std::optional<double> predictedMs) {
    if (!markProposed(index))
        return false;
    if (predictedMs)
        m_predictions[index] = *predictedMs;
    batch.push_back(index);
    return true;
}

std::vector<SearchSpace::Index>
ModelStrategyBase::pickDiverse(std::span<const SearchSpace::Index> ranked,
                               std::span<const std::optional<double>> predictedMs, std::size_t count,
                               std::size_t distance) {
    std::vector<SearchSpace::Index> batch;
    std::vector<std::vector<std::uint32_t>> chosen;
    // Configs measured elsewhere while this batch is chosen (an MPI job's batches in flight): the model
    // that ranked them has not heard of them, so the first pass keeps its picks off their neighbours too.
    std::vector<std::vector<std::uint32_t>> inFlight;
    const auto apartFromInFlight = static_cast<std::size_t>(options().integer("in_flight_apart"));
    if (apartFromInFlight > 0)
        for (SearchSpace::Index index : pendingIndices())
            inFlight.push_back(space().digits(index));
    bool firstPass = true;
    std::vector<bool> taken(ranked.size(), false);
    for (std::size_t apart : {distance, std::size_t{1}}) {
        for (std::size_t slot = 0; slot < ranked.size() && batch.size() < count; ++slot) {
            if (taken[slot])
                continue;
            std::vector<std::uint32_t> digits = space().digits(ranked[slot]);
            if (std::any_of(chosen.begin(), chosen.end(),
                            [&](const auto& other) { return hamming(digits, other) < apart; }))
                continue;
            if (firstPass && std::any_of(inFlight.begin(), inFlight.end(), [&](const auto& other) {
                    return hamming(digits, other) < apartFromInFlight;
                }))
                continue;
            taken[slot] = true;
            if (fillSlot(batch, ranked[slot], predictedMs[slot]))
                chosen.push_back(std::move(digits));
        }
        firstPass = false;
    }
    return batch;
}

std::optional<double> ModelStrategyBase::prediction(SearchSpace::Index index) const {
    auto it = m_predictions.find(index);
    return it == m_predictions.end() ? std::nullopt : std::optional<double>(it->second);
}

std::vector<std::string> ModelStrategyBase::learnedRestrictions() const {
    if (!options().boolean("restrictions"))
        return {};
    LearnedRestrictions learner(space());
    learner.update(observed());
    return learner.describe();
}

bool ModelStrategyBase::inStartup() const {
    if (prior())
        return false; // the prior ranks the configs from the first proposal on
    return m_okCount <
               static_cast<std::size_t>(std::max<std::int64_t>(2, options().integer("startup_valid"))) ||
           observed().size() < static_cast<std::size_t>(options().integer("startup_min")) || !best();
}

std::size_t ModelStrategyBase::batchSize() const {
    const char* option = pendingCount() > 0 ? "in_flight_batch_growth" : "batch_growth";
    auto growth = static_cast<std::size_t>(std::max<std::int64_t>(1, options().integer(option)));
    auto largest = static_cast<std::size_t>(std::max<std::int64_t>(1, options().integer("batch_max")));
    if (pendingCount() == 0)
        largest = std::max<std::size_t>(1, std::min(largest, sequentialLimit()));
    return std::clamp<std::size_t>(observed().size() / growth, 1, largest);
}

std::vector<SearchSpace::Index> ModelStrategyBase::startupDraws(std::size_t maxCount) {
    auto missing = options().integer("startup_min") - static_cast<std::int64_t>(observed().size());
    auto count = static_cast<std::size_t>(std::max<std::int64_t>(1, missing));
    // The start-up's draws still in flight count: with many batches measured at once (an MPI job) the model
    // takes over after as many random draws as in a single process, not after one start-up per batch.
    if (const std::size_t pending = pendingCount(); pending > 0) {
        if (count <= pending)
            return {}; // nothing until the draws in flight are heard of
        count -= pending;
    }
    count = std::min(maxCount, count);
    if (guidedDraws())
        m_validity->update(withoutPriorPicks());
    return likelyValidDraws(count);
}

std::vector<Trial> ModelStrategyBase::withoutPriorPicks() const {
    std::vector<Trial> trials;
    for (const Trial& trial : observed())
        if (!m_priorDropped || !m_priorPicks.contains(trial.index))
            trials.push_back(trial);
    return trials;
}

bool ModelStrategyBase::guidedDraws() const {
    return m_okCount > 0 && m_okCount < observed().size() && domainSize() >= 4 * kStartupChoices;
}

std::vector<SearchSpace::Index> ModelStrategyBase::likelyValidDraws(std::size_t count) {
    if (!guidedDraws())
        return drawUnproposed(count);
    std::vector<SearchSpace::Index> batch;
    std::uniform_int_distribution<SearchSpace::Index> position(0, domainSize() - 1);
    for (std::size_t slot = 0; slot < count; ++slot) {
        std::vector<SearchSpace::Index> choices;
        for (std::size_t attempt = 0; attempt < 4 * kStartupChoices && choices.size() < kStartupChoices;
             ++attempt) {
            SearchSpace::Index index = space().domainAt(mode(), position(rng()));
            if (!isProposed(index) && std::find(choices.begin(), choices.end(), index) == choices.end())
                choices.push_back(index);
        }
        if (choices.empty())
            break;
        std::vector<double> p = m_validity->predict(choices);
        std::size_t chosen = std::max_element(p.begin(), p.end()) - p.begin();
        markProposed(choices[chosen]);
        batch.push_back(choices[chosen]);
    }
    if (batch.empty())
        batch = drawUnproposed(count);
    return batch;
}

} // namespace ts
