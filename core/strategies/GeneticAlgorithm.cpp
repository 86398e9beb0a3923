#include "strategies/GeneticAlgorithm.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace ts {

namespace {

// Generations in a row without a new evaluation before fresh individuals are brought in.
constexpr int kStaleGenerations = 3;
// Attempts per missing individual before a generation is topped up with random candidates.
constexpr std::size_t kAttemptsPerIndividual = 50;

} // namespace

std::vector<OptionSpec> GeneticAlgorithm::optionTable() {
    return {
        OptionSpec::integer("popsize", "20", 2, 10000, "Individuals per generation."),
        OptionSpec::choice("method", "uniform",
                           {"single_point", "two_point", "uniform", "disruptive_uniform"},
                           "Crossover of two parents' parameter values."),
        OptionSpec::integer("mutation_chance", "10", 1, 1e6,
                            "A child mutates with probability 1 / mutation_chance."),
    };
}

std::size_t GeneticAlgorithm::biasedRank(std::size_t size) {
    // Beta(1, b) by inversion: 1 - U^(1/b).
    constexpr double kBeta = 2.5;
    double x = 1.0 - std::pow(uniform(), 1.0 / kBeta);
    return std::min(size - 1, static_cast<std::size_t>(x * static_cast<double>(size)));
}

std::pair<SearchSpace::Index, SearchSpace::Index> GeneticAlgorithm::crossover(Index a, Index b,
                                                                              const std::string& method) {
    const auto& genes = tunable();
    const std::size_t n = genes.size();
    // swap[k]: gene k of the children comes from the other parent.
    std::vector<bool> swap(n, false);
    if (method == "single_point" || method == "two_point") {
        std::size_t first = n > 1 ? 1 + uniformIndex(n - 1) : n;
        std::size_t second = method == "two_point" && n > 1 ? 1 + uniformIndex(n - 1) : n;
        if (first > second)
            std::swap(first, second);
        for (std::size_t k = first; k < second; ++k)
            swap[k] = true;
    } else if (method == "uniform") {
        for (std::size_t k = 0; k < n; ++k)
            swap[k] = uniform() < 0.5;
    } else { // disruptive_uniform, the table's last choice
        // Exactly half of the differing genes are exchanged.
        std::vector<std::size_t> differing;
        for (std::size_t k = 0; k < n; ++k)
            if (digitOf(a, genes[k]) != digitOf(b, genes[k]))
                differing.push_back(k);
        std::shuffle(differing.begin(), differing.end(), rng());
        for (std::size_t k = 0; k < differing.size() / 2; ++k)
            swap[differing[k]] = true;
    }
    Index childA = a;
    Index childB = b;
    for (std::size_t k = 0; k < n; ++k) {
        if (swap[k]) {
            childA = withDigit(childA, genes[k], digitOf(b, genes[k]));
            childB = withDigit(childB, genes[k], digitOf(a, genes[k]));
        }
    }
    return {childA, childB};
}

SearchCoroutine GeneticAlgorithm::search() {
    const auto popSize = static_cast<std::size_t>(options().integer("popsize"));
    const std::string method = options().text("method");
    const auto mutationChance = options().integer("mutation_chance");

    std::vector<Index> population;
    while (population.size() < popSize) {
        auto fresh = freshCandidate();
        if (!fresh)
            break;
        population.push_back(*fresh);
    }
    if (population.empty())
        co_return;
    int stale = 0;
    while (true) {
        const std::size_t before = knownCount();
        std::vector<double> fitness = co_await evaluateAll(population);
        stale = knownCount() == before ? stale + 1 : 0;

        std::vector<std::size_t> order(population.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t x, std::size_t y) { return fitness[x] < fitness[y]; });
        std::vector<Index> ranked;
        for (std::size_t k : order)
            ranked.push_back(population[k]);
        std::vector<Index> next;
        std::set<Index> unique;
        const std::size_t maxAttempts = kAttemptsPerIndividual * popSize;
        for (std::size_t attempt = 0; next.size() < popSize && attempt < maxAttempts; ++attempt) {
            std::size_t first = biasedRank(ranked.size());
            std::size_t second = biasedRank(ranked.size());
            while (second == first && ranked.size() > 1)
                second = biasedRank(ranked.size());
            auto [childA, childB] = crossover(ranked[first], ranked[second], method);
            for (Index child : {childA, childB}) {
                if (uniformIndex(static_cast<std::size_t>(mutationChance)) == 0)
                    child = randomNeighbour(child, Neighbourhood::Hamming);
                if (inDomain(child) && next.size() < popSize && unique.insert(child).second)
                    next.push_back(child);
            }
        }
        for (std::size_t attempt = 0; next.size() < popSize && attempt < maxAttempts; ++attempt) {
            Index child = randomCandidate();
            if (unique.insert(child).second)
                next.push_back(child);
        }
        if (stale >= kStaleGenerations) {
            for (std::size_t k = next.size() / 2; k < next.size(); ++k) {
                auto fresh = freshCandidate();
                if (!fresh)
                    co_return;
                next[k] = *fresh;
            }
            stale = 0;
        }
        population = std::move(next);
    }
}

} // namespace ts
