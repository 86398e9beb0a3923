#include "strategies/SimulatedAnnealing.h"

#include <cmath>

namespace ts {

namespace {

// Kernel Tuner draws the neighbour from the Hamming neighbourhood this often, else from the adjacent one.
constexpr double kHammingShare = 0.2;
// Iterations without a new evaluation before the walk jumps to a random config (Kernel Tuner's value).
constexpr int kStuckIterations = 100;

double acceptance(double oldCost, double newCost, double temperature) {
    if (std::isinf(oldCost))
        return 1.0; // leave an invalid start whatever comes
    if (std::isinf(newCost))
        return 0.0; // never walk back into invalid configs
    if (newCost < oldCost)
        return 1.0;
    return std::exp((oldCost - newCost) / oldCost / temperature);
}

} // namespace

std::vector<OptionSpec> SimulatedAnnealing::optionTable() {
    return {
        OptionSpec::real("T", "1.0", 1e-9, 1e9, "Starting temperature."),
        OptionSpec::real("T_min", "0.001", 0.0, 1e9, "Temperature at which the schedule restarts."),
        OptionSpec::real("alpha", "0.995", 0.0, 1.0, "Temperature factor per evaluated config."),
        OptionSpec::integer("maxiter", "1", 1, 1e6, "Neighbours tried per temperature step."),
    };
}

SearchCoroutine SimulatedAnnealing::search() {
    const double tStart = options().real("T");
    const double tMin = options().real("T_min");
    const double alpha = options().real("alpha");
    const std::int64_t stepsPerTemperature = options().integer("maxiter");

    while (true) {
        auto start = freshCandidate();
        if (!start)
            co_return;
        Index position = *start;
        double cost = co_await evaluate(position);
        const std::size_t scheduleStart = knownCount();
        std::size_t lastCount = knownCount();
        int stuck = 0;
        double temperature = tStart;
        while (temperature > tMin) {
            for (std::int64_t k = 0; k < stepsPerTemperature; ++k) {
                auto kind = uniform() < kHammingShare ? Neighbourhood::Hamming : Neighbourhood::Adjacent;
                Index next = randomNeighbour(position, kind);
                double nextCost = co_await evaluate(next);
                if (acceptance(cost, nextCost, temperature) > uniform()) {
                    position = next;
                    cost = nextCost;
                }
            }
            temperature = tStart * std::pow(alpha, static_cast<double>(knownCount() - scheduleStart));
            stuck = knownCount() == lastCount ? stuck + 1 : 0;
            lastCount = knownCount();
            if (stuck > kStuckIterations) {
                auto jump = freshCandidate();
                if (!jump)
                    co_return;
                position = *jump;
                cost = co_await evaluate(position);
                stuck = 0;
            }
        }
    }
}

} // namespace ts
