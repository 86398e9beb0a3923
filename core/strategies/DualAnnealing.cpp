#include "strategies/DualAnnealing.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ts {

namespace {

// scipy's bounds on a visit and on the distance to the lower bound.
constexpr double kTailLimit = 1e8;
constexpr double kMinVisitBound = 1e-10;
// Chain steps before the first local search from the chain's minimum without a new best (scipy).
constexpr std::size_t kNotImprovedMax = 1000;
// Temperature steps in a row without a new evaluation before re-annealing: the discrete chain has settled
// on known configs, where the continuous one would keep refining.
constexpr std::size_t kIdleSteps = 50;

} // namespace

std::vector<OptionSpec> DualAnnealing::optionTable() {
    return {
        OptionSpec::real("initial_temp", "5230.0", 0.01, 5e4,
                         "Initial temperature of the visiting distribution."),
        OptionSpec::real("restart_temp_ratio", "2e-5", 0.0, 1.0,
                         "Re-anneal when the temperature falls below initial_temp times this."),
        OptionSpec::real("visit", "2.62", 1.01, 2.99, "Visiting parameter qv: higher jumps farther."),
        OptionSpec::real("accept", "-5.0", -1e4, -5.0,
                         "Acceptance parameter qa: lower accepts fewer uphill moves."),
        OptionSpec::integer("maxiter", "1000", 1, 1e9, "Temperature steps before re-annealing."),
        OptionSpec::boolean("no_local_search", "false",
                            "Skip the local searches (plain generalized annealing)."),
    };
}

SearchSpace::Index DualAnnealing::snap(const std::vector<double>& point) const {
    Index index = 0;
    for (std::size_t k = 0; k < point.size(); ++k) {
        const std::size_t p = tunable()[k];
        auto digit = std::min(static_cast<std::uint32_t>(std::max(0.0, point[k])), valueCount(p) - 1);
        index = withDigit(index, p, digit);
    }
    return index;
}

std::vector<double> DualAnnealing::pointIn(Index index) {
    std::vector<double> point;
    for (std::size_t p : tunable())
        point.push_back(digitOf(index, p) + uniform());
    return point;
}

double DualAnnealing::visitStep(double temperature) {
    std::normal_distribution<double> normal;
    double x = normal(rng());
    double y = normal(rng());
    double factor4 = m_factor4p * std::exp(std::log(temperature) / (m_visit - 1.0));
    x *= std::exp(-(m_visit - 1.0) * std::log(m_factor6 / factor4) / (3.0 - m_visit));
    double den = std::exp((m_visit - 1.0) * std::log(std::fabs(y)) / (3.0 - m_visit));
    return x / den;
}

double DualAnnealing::wrap(double value, std::size_t coordinate) const {
    const double range = valueCount(tunable()[coordinate]);
    double wrapped = std::fmod(std::fmod(value, range) + range, range);
    return wrapped < kMinVisitBound ? wrapped + kMinVisitBound : wrapped;
}

std::vector<double> DualAnnealing::visiting(const std::vector<double>& point, std::size_t step,
                                            double temperature) {
    const std::size_t n = point.size();
    std::vector<double> out = point;
    if (step < n) {
        std::vector<double> visits(n);
        for (double& visit : visits)
            visit = visitStep(temperature);
        const double upper = uniform();
        const double lower = uniform();
        for (std::size_t k = 0; k < n; ++k) {
            double visit = visits[k] > kTailLimit    ? kTailLimit * upper
                           : visits[k] < -kTailLimit ? -kTailLimit * lower
                                                     : visits[k];
            out[k] = wrap(point[k] + visit, k);
        }
    } else {
        double visit = visitStep(temperature);
        if (std::fabs(visit) > kTailLimit)
            visit = std::copysign(kTailLimit * uniform(), visit);
        out[step - n] = wrap(point[step - n] + visit, step - n);
    }
    return out;
}

SearchCoroutine DualAnnealing::search() {
    const double initialTemp = options().real("initial_temp");
    const double restartTemp = initialTemp * options().real("restart_temp_ratio");
    const double qa = options().real("accept");
    const std::int64_t maxIter = options().integer("maxiter");
    const bool localSearch = !options().boolean("no_local_search");
    m_visit = options().real("visit");
    const double qv = m_visit;
    const double factor2 = std::exp((4.0 - qv) * std::log(qv - 1.0));
    const double factor3 = std::exp((2.0 - qv) * std::log(2.0) / (qv - 1.0));
    m_factor4p = std::sqrt(std::numbers::pi) * factor2 / (factor3 * (3.0 - qv));
    const double factor5 = 1.0 / (qv - 1.0) - 0.5;
    m_factor6 = std::numbers::pi * (1.0 - factor5) / std::sin(std::numbers::pi * (1.0 - factor5)) /
                std::exp(std::lgamma(2.0 - factor5));
    const double t1 = std::exp((qv - 1.0) * std::log(2.0)) - 1.0;
    const std::size_t n = tunable().size();

    std::vector<double> best;
    double bestEnergy = kInvalid;
    while (true) {
        // Re-anneal from a random config with a finite energy (scipy's EnergyState.reset).
        std::vector<double> current;
        double energy = kInvalid;
        while (std::isinf(energy)) {
            auto start = freshCandidate();
            if (!start)
                co_return;
            energy = co_await evaluate(*start);
            current = pointIn(*start);
        }
        if (energy < bestEnergy) {
            best = current;
            bestEnergy = energy;
        }
        if (n == 0)
            continue;
        std::vector<double> chainMin = current;
        double chainMinEnergy = energy;
        std::size_t notImproved = 0;
        std::size_t notImprovedMax = kNotImprovedMax;
        std::size_t idle = 0;
        for (std::int64_t i = 0; i < maxIter && idle < kIdleSteps; ++i) {
            const std::size_t knownBefore = knownCount();
            const double s = static_cast<double>(i) + 2.0;
            const double temperature = initialTemp * t1 / (std::exp((qv - 1.0) * std::log(s)) - 1.0);
            if (temperature < restartTemp)
                break;
            // Strategy chain.
            const double temperatureStep = temperature / static_cast<double>(i + 1);
            ++notImproved;
            bool improved = i == 0;
            for (std::size_t j = 0; j < 2 * n; ++j) {
                std::vector<double> visit = visiting(current, j, temperature);
                double e = co_await evaluate(snap(visit));
                if (e < energy) {
                    current = visit;
                    energy = e;
                    if (e < bestEnergy) {
                        best = visit;
                        bestEnergy = e;
                        improved = true;
                        notImproved = 0;
                    }
                    continue;
                }
                const double r = uniform();
                const double pqvTemp = 1.0 - (1.0 - qa) * (e - energy) / temperatureStep;
                const double pqv = pqvTemp <= 0.0 ? 0.0 : std::exp(std::log(pqvTemp) / (1.0 - qa));
                if (pqv > 0.0 && r <= pqv) {
                    current = visit;
                    energy = e;
                    chainMin = current;
                }
                if (notImproved >= notImprovedMax && (j == 0 || energy < chainMinEnergy)) {
                    chainMinEnergy = energy;
                    chainMin = current;
                }
            }
            // Local searches: from the best after an improving chain, from the chain's minimum after long
            // stagnation (scipy's probabilistic third case never fires: its K is 100 n, tested against 90 n).
            for (int phase = 0; phase < 2 && localSearch; ++phase) {
                if (phase == 0 ? !improved : notImproved < notImprovedMax)
                    continue;
                std::vector<double> point = phase == 0 ? best : chainMin;
                double e = phase == 0 ? bestEnergy : chainMinEnergy;
                Index at = snap(point);
                for (bool moved = true; moved;) {
                    moved = false;
                    for (std::size_t k = 0; k < n; ++k) {
                        const std::size_t p = tunable()[k];
                        std::vector<Index> line;
                        for (std::uint32_t d = 0; d < valueCount(p); ++d)
                            line.push_back(withDigit(at, p, d));
                        std::vector<double> energies = co_await evaluateAll(line);
                        auto lowest = std::min_element(energies.begin(), energies.end()) - energies.begin();
                        if (energies[lowest] < e) {
                            e = energies[lowest];
                            at = line[lowest];
                            point[k] = static_cast<double>(lowest) + (point[k] - std::floor(point[k]));
                            moved = true;
                        }
                    }
                }
                if (phase == 1) {
                    chainMin = point;
                    chainMinEnergy = e;
                    notImproved = 0;
                    notImprovedMax = n;
                }
                if (e < bestEnergy) {
                    notImproved = 0;
                    best = current = point;
                    bestEnergy = energy = e;
                }
            }
            idle = knownCount() == knownBefore ? idle + 1 : 0;
        }
    }
}

} // namespace ts
