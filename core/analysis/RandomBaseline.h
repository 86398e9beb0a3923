#pragma once

#include <cstdint>
#include <vector>

namespace ts {

// The exact expectation of uniform random sampling without replacement over a domain of `domainSize`
// configs of which `objectives` are the valid ones (the rest are invalid evaluations). Hypergeometric:
// after k draws, P(the best valid one drawn has rank j) = C(N-j, k-1) / C(N, k).
class RandomBaseline {
public:
    RandomBaseline(std::uint64_t domainSize, std::vector<double> objectives);

    // E[optimum / best found after k draws], counting 0 while nothing valid has been found.
    double expectedFraction(std::uint64_t k) const;
    // E[best objective after k draws], counting `nothingFound` while nothing valid has been found.
    double expectedBest(std::uint64_t k, double nothingFound) const;

private:
    template <typename Value> double expectation(std::uint64_t k, Value value, double nothingFound) const;

    std::uint64_t m_domainSize;
    std::vector<double> m_sorted;
};

} // namespace ts
