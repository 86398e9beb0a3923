#include "strategies/GreedyIls.h"

#include <algorithm>

namespace ts {

std::vector<OptionSpec> GreedyIls::optionTable() {
    return {
        OptionSpec::choice("neighbor", "Hamming", {"Hamming", "adjacent"}, "Neighbourhood of the climb."),
        OptionSpec::boolean("restart", "true",
                            "Restart the neighbour scan at each improvement (first improvement)."),
        OptionSpec::integer("no_improvement", "50", 0, 1e6,
                            "Climbs without a new best before restarts become random."),
        OptionSpec::real("random_walk", "0.3", 0.0, 1.0,
                         "Perturbation size as a share of the parameters (at least one step)."),
    };
}

SearchCoroutine GreedyIls::search() {
    const bool adjacent = options().text("neighbor") == "adjacent";
    const bool restart = options().boolean("restart");
    const std::int64_t noImprovement = options().integer("no_improvement");
    // random_walk lies in [0, 1] (the table), so the product is at most the number of parameters.
    const auto walkSteps = std::max<std::size_t>(
        1, static_cast<std::size_t>(options().real("random_walk") * static_cast<double>(tunable().size())));

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
