#pragma once

#include <cstddef>
#include <span>

namespace ts {

// Spearman rank correlation (ties get their average rank); 0 when fewer than 2 pairs or a side is constant.
double spearman(std::span<const double> a, std::span<const double> b);

// Of the k configs with the lowest actual values, the fraction that are among the k lowest predicted.
double topKRecall(std::span<const double> predicted, std::span<const double> actual, std::size_t k);

} // namespace ts
