#include "strategies/Evolutionary.h"

#include "util/Concurrently.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_set>

namespace ts {

namespace {

constexpr double kSpread = 0.15;           // log-time spread assumed by the expected improvement
constexpr std::size_t kTournament = 3;     // contestants per parent selection
constexpr std::size_t kChildAttempts = 8;  // tries for an acceptable (valid, new) child
constexpr std::size_t kRandomAttempts = 4; // draws per random seed looking for an unproposed config
constexpr std::size_t kCarriedMax = 64;    // unproposed runners-up seeding the next batch

std::size_t positive(std::int64_t value) {
    return static_cast<std::size_t>(std::max<std::int64_t>(1, value));
}

} // namespace

std::vector<OptionSpec> Evolutionary::optionTable() {
    std::vector<OptionSpec> table = commonOptions();
    std::vector<OptionSpec> own{
        OptionSpec::integer("population", "128", 1, 65536, "Configs in the population evolved on the model"),
        OptionSpec::integer("generations", "4", 0, 1000, "Generations evolved per batch (no measurements)"),
        OptionSpec::real("mutation_prob", "0.85", 0.0, 1.0,
                         "Chance that a crossover child also mutates one parameter (a child without "
                         "crossover always does)"),
        OptionSpec::real("crossover_prob", "0.5", 0.0, 1.0,
                         "Chance that a child is a uniform crossover of two parents"),
        OptionSpec::integer("elite", "16", 0, 65536, "Best measured configs seeding the population"),
        OptionSpec::integer(
            "diversity", "2", 0, 1000,
            "Picks of a batch differ in at least this many parameters where the population allows"),
    };
    table.insert(table.end(), own.begin(), own.end());
    return table;
}

void Evolutionary::onModelReset() {
    m_cost = makeCostModel(0, 1);
    m_population = positive(options().integer("population"));
    m_generations = static_cast<std::size_t>(std::max<std::int64_t>(0, options().integer("generations")));
    m_elite = static_cast<std::size_t>(std::max<std::int64_t>(0, options().integer("elite")));
    m_diversity = static_cast<std::size_t>(std::max<std::int64_t>(0, options().integer("diversity")));
    m_mutationProb = std::clamp(options().real("mutation_prob"), 0.0, 1.0);
    m_crossoverProb = std::clamp(options().real("crossover_prob"), 0.0, 1.0);
    m_archive.clear();
    m_archived.clear();
    m_carried.clear();
    m_bestLog = 0.0;
}

void Evolutionary::retrain() {
    // The two models share nothing but the trials: they train at once (as xgb's do).
    runConcurrently({[this] { validity().update(observed()); }, [this] { m_cost->update(observed()); }});
    m_bestLog = std::log(best()->measurement.objective);
}

std::vector<std::size_t> Evolutionary::scoreAll(std::span<const Index> indices) {
    std::vector<Index> fresh;
    std::unordered_set<Index> seen;
    for (Index index : indices)
        if (!m_archived.contains(index) && seen.insert(index).second)
            fresh.push_back(index);
    if (!fresh.empty()) {
        std::shared_ptr<const XgbMatrix> features = encode(fresh);
        std::vector<double> pValid = validity().predict(*features, fresh);
        std::vector<double> meanLog = m_cost->predictLog(fresh);
        for (std::size_t i = 0; i < fresh.size(); ++i) {
            m_archived.emplace(fresh[i], m_archive.size());
            m_archive.push_back(
                {fresh[i], pValid[i] * expectedImprovement(meanLog[i], kSpread, m_bestLog), meanLog[i]});
        }
    }
    std::vector<std::size_t> positions;
    positions.reserve(indices.size());
    for (Index index : indices)
        positions.push_back(m_archived.at(index));
    return positions;
}

std::vector<std::size_t> Evolutionary::seedPopulation() {
    std::vector<Index> seeds;
    std::vector<const Trial*> ok;
    for (const Trial& trial : observed())
        if (trial.measurement.status == MeasureStatus::Ok)
            ok.push_back(&trial);
    const std::size_t elite = std::min(ok.size(), m_elite);
    std::partial_sort(ok.begin(), ok.begin() + elite, ok.end(), [](const Trial* a, const Trial* b) {
        return a->measurement.objective != b->measurement.objective
                   ? a->measurement.objective < b->measurement.objective
                   : a->index < b->index;
    });
    for (std::size_t i = 0; i < elite; ++i)
        seeds.push_back(ok[i]->index);
    for (Index index : m_carried)
        if (!isProposed(index))
            seeds.push_back(index);
    // Random members keep the population from collapsing onto the measured optimum's neighbourhood; they are
    // drawn among unproposed configs where the domain still has some.
    while (seeds.size() < m_population) {
        Index index = randomCandidate();
        for (std::size_t attempt = 1; attempt < kRandomAttempts && isProposed(index); ++attempt)
            index = randomCandidate();
        seeds.push_back(index);
    }
    std::vector<std::size_t> population = scoreAll(seeds);
    std::sort(population.begin(), population.end());
    population.erase(std::unique(population.begin(), population.end()), population.end());
    return population;
}

std::size_t Evolutionary::tournament(const std::vector<std::size_t>& population) {
    std::uniform_int_distribution<std::size_t> member(0, population.size() - 1);
    std::size_t winner = population[member(rng())];
    for (std::size_t k = 1; k < kTournament; ++k) {
        std::size_t challenger = population[member(rng())];
        if (m_archive[challenger].score > m_archive[winner].score)
            winner = challenger;
    }
    return winner;
}

void Evolutionary::mutate(std::vector<std::uint32_t>& digits) {
    std::uniform_int_distribution<std::size_t> which(0, tunable().size() - 1);
    const std::size_t p = tunable()[which(rng())];
    const auto size = static_cast<std::uint32_t>(space().parameters()[p].values.size());
    if (std::bernoulli_distribution(0.5)(rng())) {
        // Adjacent value: one step up or down the value list, turned back at the ends.
        bool up = std::bernoulli_distribution(0.5)(rng());
        if (digits[p] == 0)
            up = true;
        else if (digits[p] + 1 == size)
            up = false;
        digits[p] = up ? digits[p] + 1 : digits[p] - 1;
    } else {
        std::uniform_int_distribution<std::uint32_t> other(0, size - 2);
        std::uint32_t value = other(rng());
        digits[p] = value >= digits[p] ? value + 1 : value;
    }
}

std::optional<Evolutionary::Index> Evolutionary::offspring(const std::vector<std::size_t>& population) {
    std::bernoulli_distribution crossover(m_crossoverProb), mutation(m_mutationProb), coin(0.5);
    for (std::size_t attempt = 0; attempt < kChildAttempts; ++attempt) {
        std::vector<std::uint32_t> digits = space().digits(m_archive[tournament(population)].index);
        bool crossed = false;
        if (population.size() > 1 && crossover(rng())) {
            std::vector<std::uint32_t> other = space().digits(m_archive[tournament(population)].index);
            for (std::size_t p = 0; p < digits.size(); ++p)
                if (coin(rng()) && digits[p] != other[p]) {
                    digits[p] = other[p];
                    crossed = true;
                }
        }
        if (!crossed || mutation(rng()))
            mutate(digits);
        Index child = space().indexOfDigits(digits);
        if (inDomain(child))
            return child;
    }
    return std::nullopt;
}

std::vector<std::size_t> Evolutionary::nextGeneration(const std::vector<std::size_t>& population) {
    std::vector<Index> children;
    children.reserve(m_population);
    for (std::size_t k = 0; k < m_population; ++k)
        if (auto child = offspring(population))
            children.push_back(*child);
    // Elitist replacement: the fittest of parents and children, each config once.
    std::vector<std::size_t> merged = scoreAll(children);
    merged.insert(merged.end(), population.begin(), population.end());
    std::sort(merged.begin(), merged.end());
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    const std::size_t keep = std::min(merged.size(), m_population);
    std::partial_sort(merged.begin(), merged.begin() + keep, merged.end(), [&](std::size_t a, std::size_t b) {
        const Scored& x = m_archive[a];
        const Scored& y = m_archive[b];
        return x.score != y.score ? x.score > y.score : x.index < y.index;
    });
    merged.resize(keep);
    return merged;
}

std::vector<Evolutionary::Index> Evolutionary::pick(std::size_t count) {
    // Every config met during the evolution, fittest first: the final population and anything better
    // that left it.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < m_archive.size(); ++i)
        if (!isProposed(m_archive[i].index))
            order.push_back(i);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const Scored& x = m_archive[a];
        const Scored& y = m_archive[b];
        return x.score != y.score ? x.score > y.score : x.index < y.index;
    });
    std::vector<Index> ranked;
    std::vector<std::optional<double>> predicted;
    for (std::size_t i : order) {
        ranked.push_back(m_archive[i].index);
        predicted.push_back(std::exp(m_archive[i].meanLog));
    }
    std::vector<Index> batch = pickDiverse(ranked, predicted, count, m_diversity);
    m_carried.clear();
    for (std::size_t slot = 0; slot < order.size() && m_carried.size() < kCarriedMax; ++slot)
        if (!isProposed(m_archive[order[slot]].index))
            m_carried.push_back(m_archive[order[slot]].index);
    return batch;
}

std::vector<SearchSpace::Index> Evolutionary::proposeBatch(std::size_t count) {
    m_archive.clear();
    m_archived.clear();
    if (tunable().empty())
        return {};
    std::vector<std::size_t> population = seedPopulation();
    for (std::size_t generation = 0; generation < m_generations; ++generation)
        population = nextGeneration(population);
    return pick(count);
}

} // namespace ts
