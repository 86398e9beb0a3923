#include "analysis/RandomBaseline.h"

#include <algorithm>

namespace ts {

RandomBaseline::RandomBaseline(std::uint64_t domainSize, std::vector<double> objectives)
    : m_domainSize(domainSize), m_sorted(std::move(objectives)) {
    std::sort(m_sorted.begin(), m_sorted.end());
}

template <typename Value>
double RandomBaseline::expectation(std::uint64_t k, Value value, double nothingFound) const {
    const double n = static_cast<double>(m_domainSize);
    k = std::min(k, m_domainSize);
    if (k == 0)
        return nothingFound;
    // q = P(every draw has rank >= j) = C(N-j+1, k) / C(N, k), updated as j grows.
    double q = 1.0;
    double sum = 0.0;
    for (std::size_t j = 1; j <= m_sorted.size(); ++j) {
        double remaining = n - static_cast<double>(j) + 1.0; // N - j + 1
        double next = remaining - static_cast<double>(k) <= 0.0 ? 0.0 : q * (remaining - k) / remaining;
        sum += (q - next) * value(m_sorted[j - 1]);
        q = next;
        if (q == 0.0)
            break;
    }
    return sum + q * nothingFound;
}

double RandomBaseline::expectedFraction(std::uint64_t k) const {
    if (m_sorted.empty())
        return 0.0;
    double optimum = m_sorted.front();
    return expectation(
        k, [optimum](double t) { return optimum / t; }, 0.0);
}

double RandomBaseline::expectedBest(std::uint64_t k, double nothingFound) const {
    return expectation(
        k, [](double t) { return t; }, nothingFound);
}

} // namespace ts
