#include "strategies/GreedyIls.h"

#include "util/Error.h"

#include <algorithm>

namespace ts {

std::vector<OptionSpec> GreedyIls::optionTable() {
    return {
        {"neighbor", OptionType::String, "Hamming", "Neighbourhood of the climb: Hamming or adjacent."},
        {"restart", OptionType::Bool, "true",
         "Restart the neighbour scan at each improvement (first improvement)."},
        {"no_improvement", OptionType::Integer, "50",
         "Climbs without a new best before restarts become random."},
        {"random_walk", OptionType::Real, "0.3", "Perturbation size as a share of the parameters."},
    };
}

SearchCoroutine GreedyIls::search() {
    const StrategyOptions options = optionsWith(optionTable());
    const std::string& neighbor = options.text("neighbor");
    if (neighbor != "Hamming" && neighbor != "adjacent")
        throw Error("Option \"neighbor\" of strategy \"greedy_ils\" must be Hamming or adjacent, not \"" +
                    neighbor + "\".");
    const bool adjacent = neighbor == "adjacent";
    const bool restart = options.boolean("restart");
    const std::int64_t noImprovement = options.integer("no_improvement");
    const auto walkSteps = std::max<std::size_t>(
        1, static_cast<std::size_t>(options.real("random_walk") * static_cast<double>(tunable().size())));

    auto start = freshCandidate();
    if (!start)
        co_return;
    Index current = *start;
    double bestScore = kInvalid;
    std::int64_t sinceImprovement = 0;
    std::vector<std::size_t> order = tunable();
    std::vector<std::uint32_t> digits;
    while (true) {
        double score = co_await evaluate(current);
        bool improved = true;
        while (improved) {
            improved = false;
            std::shuffle(order.begin(), order.end(), rng());
            for (std::size_t p : order) {
                const std::uint32_t at = digitOf(current, p);
                digits.clear();
                for (std::uint32_t d = 0; d < valueCount(p); ++d)
                    if (d != at && (!adjacent || d + 1 == at || d == at + 1))
                        digits.push_back(d);
                std::shuffle(digits.begin(), digits.end(), rng());
                for (std::uint32_t d : digits) {
                    Index child = withDigit(current, p, d);
                    if (!inDomain(child))
                        continue;
                    double childScore = co_await evaluate(child);
                    if (childScore < score) {
                        current = child;
                        score = childScore;
                        improved = true;
                        if (restart)
                            break;
                    }
                }
                if (improved && restart)
                    break;
            }
        }
        sinceImprovement = score < bestScore ? 0 : sinceImprovement + 1;
        bestScore = std::min(bestScore, score);
        if (sinceImprovement >= noImprovement) {
            auto jump = freshCandidate();
            if (!jump)
                co_return;
            current = *jump;
        } else {
            for (std::size_t k = 0; k < walkSteps; ++k)
                current = randomNeighbour(current, Neighbourhood::Hamming);
        }
    }
}

} // namespace ts
