#include "models/ModelQuality.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ts {

namespace {

std::vector<double> ranks(std::span<const double> values) {
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    std::vector<double> rank(values.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
            ++j;
        double average = (static_cast<double>(i) + static_cast<double>(j)) / 2.0;
        for (std::size_t k = i; k <= j; ++k)
            rank[order[k]] = average;
        i = j + 1;
    }
    return rank;
}

std::vector<std::size_t> lowest(std::span<const double> values, std::size_t k) {
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    order.resize(std::min(k, order.size()));
    std::sort(order.begin(), order.end());
    return order;
}

} // namespace

double spearman(std::span<const double> a, std::span<const double> b) {
    const std::size_t n = std::min(a.size(), b.size());
    if (n < 2)
        return 0.0;
    std::vector<double> ra = ranks(a.first(n)), rb = ranks(b.first(n));
    double meanA = std::accumulate(ra.begin(), ra.end(), 0.0) / double(n);
    double meanB = std::accumulate(rb.begin(), rb.end(), 0.0) / double(n);
    double covariance = 0, varianceA = 0, varianceB = 0;
    for (std::size_t i = 0; i < n; ++i) {
        covariance += (ra[i] - meanA) * (rb[i] - meanB);
        varianceA += (ra[i] - meanA) * (ra[i] - meanA);
        varianceB += (rb[i] - meanB) * (rb[i] - meanB);
    }
    if (varianceA == 0.0 || varianceB == 0.0)
        return 0.0;
    return covariance / std::sqrt(varianceA * varianceB);
}

double topKRecall(std::span<const double> predicted, std::span<const double> actual, std::size_t k) {
    const std::size_t n = std::min(predicted.size(), actual.size());
    k = std::min(k, n);
    if (k == 0)
        return 0.0;
    std::vector<std::size_t> truth = lowest(actual.first(n), k), guess = lowest(predicted.first(n), k);
    std::vector<std::size_t> both;
    std::set_intersection(truth.begin(), truth.end(), guess.begin(), guess.end(), std::back_inserter(both));
    return static_cast<double>(both.size()) / static_cast<double>(k);
}

} // namespace ts
