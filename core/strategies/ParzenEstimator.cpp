#include "strategies/ParzenEstimator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ts {

namespace {

// Keeps logarithms finite when a kernel puts (numerically) no mass on a value.
constexpr double kMassFloor = 1e-300;
constexpr double kSigmaFloor = 1e-12;

bool isPowerOfTwo(double value) {
    if (!(value > 0.0) || value != std::floor(value) || value > 9.0e15)
        return false;
    auto integer = static_cast<std::uint64_t>(value);
    return (integer & (integer - 1)) == 0;
}

// P(a < Z < b) for a standard normal Z, computed on the side of the tail so that mass far out is not lost
// to cancellation.
double normalMass(double a, double b) {
    constexpr double kInvSqrt2 = 0.70710678118654752440;
    if (a >= 0.0)
        return 0.5 * (std::erfc(a * kInvSqrt2) - std::erfc(b * kInvSqrt2));
    if (b <= 0.0)
        return 0.5 * (std::erfc(-b * kInvSqrt2) - std::erfc(-a * kInvSqrt2));
    return 1.0 - 0.5 * std::erfc(-a * kInvSqrt2) - 0.5 * std::erfc(b * kInvSqrt2);
}

std::size_t pick(std::mt19937_64& rng, const double* cumulative, std::size_t count) {
    double u = std::uniform_real_distribution<double>(0.0, cumulative[count - 1])(rng);
    auto it = std::upper_bound(cumulative, cumulative + count, u);
    return std::min<std::size_t>(static_cast<std::size_t>(it - cumulative), count - 1);
}

} // namespace

ParzenEstimator::Axis ParzenEstimator::Axis::of(const Parameter& parameter, bool logPowersOfTwo) {
    Axis axis;
    const std::size_t n = parameter.values.size();
    bool numeric = parameter.type == ParameterType::Integer || parameter.type == ParameterType::Real;
    for (const Value& value : parameter.values)
        numeric = numeric && isNumeric(value);
    axis.categorical = !numeric;
    axis.centre.resize(n);
    for (std::size_t k = 0; k < n; ++k)
        axis.centre[k] = static_cast<double>(k);
    if (numeric && logPowersOfTwo && n >= 3 &&
        std::all_of(parameter.values.begin(), parameter.values.end(),
                    [](const Value& v) { return isPowerOfTwo(toNumber(v)); })) {
        std::vector<double> logs(n);
        for (std::size_t k = 0; k < n; ++k)
            logs[k] = std::log2(toNumber(parameter.values[k]));
        std::vector<double> sorted = logs;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end())
            axis.centre = logs;
    }

    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return axis.centre[a] < axis.centre[b]; });
    axis.cellLow.resize(n);
    axis.cellHigh.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
        const double c = axis.centre[order[r]];
        const double below =
            r > 0 ? axis.centre[order[r - 1]] : (n > 1 ? 2.0 * c - axis.centre[order[1]] : c - 1.0);
        const double above =
            r + 1 < n ? axis.centre[order[r + 1]] : (n > 1 ? 2.0 * c - axis.centre[order[n - 2]] : c + 1.0);
        axis.cellLow[order[r]] = 0.5 * (below + c);
        axis.cellHigh[order[r]] = 0.5 * (c + above);
    }
    if (n > 0) {
        axis.low = axis.centre[order.front()];
        axis.high = axis.centre[order.back()];
        axis.lowEdge = axis.cellLow[order.front()];
        axis.highEdge = axis.cellHigh[order.back()];
    }
    return axis;
}

ParzenEstimator::ParzenEstimator(const std::vector<Axis>& axes,
                                 const std::vector<std::span<const std::uint32_t>>& observations,
                                 const std::vector<double>& weights, const Settings& settings)
    : m_axes(axes), m_settings(settings) {
    m_offset.resize(m_axes.size());
    for (std::size_t d = 0; d < m_axes.size(); ++d) {
        m_offset[d] = m_rowSize;
        m_rowSize += m_axes[d].size();
        if (m_axes[d].size() > 1)
            m_active.push_back(d);
    }

    const bool prior = settings.priorWeight > 0.0 || observations.empty();
    m_kernels = observations.size() + (prior ? 1 : 0);
    std::vector<double> kernelWeights(weights.begin(),
                                      weights.begin() + static_cast<std::ptrdiff_t>(observations.size()));
    if (prior)
        kernelWeights.push_back(observations.empty() ? 1.0 : settings.priorWeight);
    double total = std::accumulate(kernelWeights.begin(), kernelWeights.end(), 0.0);
    if (!(total > 0.0)) {
        std::fill(kernelWeights.begin(), kernelWeights.end(), 1.0);
        total = static_cast<double>(kernelWeights.size());
    }
    m_logWeight.resize(m_kernels);
    m_weightCumulative.resize(m_kernels);
    double running = 0.0;
    for (std::size_t i = 0; i < m_kernels; ++i) {
        const double w = kernelWeights[i] / total;
        m_logWeight[i] = std::log(std::max(w, kMassFloor));
        running += w;
        m_weightCumulative[i] = running;
    }

    std::vector<std::vector<double>> masses(m_kernels, std::vector<double>(m_rowSize, 1.0));
    for (std::size_t d : m_active) {
        if (m_axes[d].categorical)
            addCategoricalKernels(d, observations, masses);
        else
            addNumericKernels(d, observations, masses);
    }

    std::vector<std::vector<double>> rows;
    if (settings.multivariate) {
        rows = std::move(masses);
    } else {
        std::vector<double> mixture(m_rowSize, 0.0);
        for (std::size_t i = 0; i < m_kernels; ++i) {
            const double w = kernelWeights[i] / total;
            for (std::size_t j = 0; j < m_rowSize; ++j)
                mixture[j] += w * masses[i][j];
        }
        rows.push_back(std::move(mixture));
    }
    m_logMass.resize(rows.size() * m_rowSize);
    m_cumulative.resize(rows.size() * m_rowSize);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        for (std::size_t d = 0; d < m_axes.size(); ++d) {
            double sum = 0.0;
            for (std::size_t v = 0; v < m_axes[d].size(); ++v) {
                const std::size_t j = r * m_rowSize + m_offset[d] + v;
                const double mass = rows[r][m_offset[d] + v];
                m_logMass[j] = std::log(std::max(mass, kMassFloor));
                sum += mass;
                m_cumulative[j] = sum;
            }
        }
    }
}

void ParzenEstimator::addNumericKernels(std::size_t d,
                                        const std::vector<std::span<const std::uint32_t>>& observations,
                                        std::vector<std::vector<double>>& masses) const {
    const Axis& axis = m_axes[d];
    const std::size_t n = observations.size();
    const bool prior = m_kernels > n;
    const double width = axis.highEdge - axis.lowEdge;
    const double priorMu = 0.5 * (axis.low + axis.high);

    std::vector<double> mus(n);
    for (std::size_t k = 0; k < n; ++k)
        mus[k] = axis.centre[observations[k][d]];

    std::vector<double> sigmas(n);
    if (m_settings.multivariate) {
        const double exponent = -1.0 / (static_cast<double>(m_active.size()) + 4.0);
        std::fill(sigmas.begin(), sigmas.end(),
                  0.2 * std::pow(static_cast<double>(std::max<std::size_t>(n, 1)), exponent) * width);
    } else if (n > 0) {
        // Optuna's bandwidth: the larger distance to a neighbour among the observations, the prior's mean and
        // the ends of the range.
        std::vector<double> withPrior = mus;
        if (prior)
            withPrior.push_back(priorMu);
        std::vector<std::size_t> order(withPrior.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return withPrior[a] < withPrior[b]; });
        std::vector<double> points;
        points.reserve(order.size() + 2);
        points.push_back(axis.lowEdge);
        for (std::size_t k : order)
            points.push_back(withPrior[k]);
        points.push_back(axis.highEdge);
        std::vector<double> sorted(order.size());
        for (std::size_t r = 0; r < order.size(); ++r)
            sorted[r] = std::max(points[r + 1] - points[r], points[r + 2] - points[r + 1]);
        if (!m_settings.endpoints && points.size() >= 4) {
            sorted.front() = points[2] - points[1];
            sorted.back() = points[points.size() - 2] - points[points.size() - 3];
        }
        for (std::size_t r = 0; r < order.size(); ++r)
            if (order[r] < n)
                sigmas[order[r]] = sorted[r];
    }
    const double maxSigma = width;
    const double minSigma =
        m_settings.magicClip ? width / std::min(100.0, 1.0 + static_cast<double>(m_kernels)) : kSigmaFloor;
    for (double& sigma : sigmas)
        sigma = std::clamp(sigma, std::max(minSigma, kSigmaFloor), std::max(maxSigma, kSigmaFloor));
    if (prior) {
        mus.push_back(priorMu);
        sigmas.push_back(width);
    }

    for (std::size_t i = 0; i < m_kernels; ++i) {
        double* row = masses[i].data() + m_offset[d];
        double sum = 0.0;
        for (std::size_t v = 0; v < axis.size(); ++v) {
            row[v] =
                normalMass((axis.cellLow[v] - mus[i]) / sigmas[i], (axis.cellHigh[v] - mus[i]) / sigmas[i]);
            sum += row[v];
        }
        // The cells tile the truncation range, so this is the truncation's normalisation.
        for (std::size_t v = 0; v < axis.size(); ++v)
            row[v] = sum > 0.0 ? row[v] / sum : 1.0 / static_cast<double>(axis.size());
    }
}

void ParzenEstimator::addCategoricalKernels(std::size_t d,
                                            const std::vector<std::span<const std::uint32_t>>& observations,
                                            std::vector<std::vector<double>>& masses) const {
    const std::size_t choices = m_axes[d].size();
    const double smoothing =
        observations.empty() ? 1.0 : m_settings.priorWeight / static_cast<double>(m_kernels);
    for (std::size_t i = 0; i < m_kernels; ++i) {
        double* row = masses[i].data() + m_offset[d];
        std::fill(row, row + choices, smoothing);
        if (i < observations.size())
            row[observations[i][d]] += 1.0;
        const double sum = std::accumulate(row, row + choices, 0.0);
        for (std::size_t v = 0; v < choices; ++v)
            row[v] = sum > 0.0 ? row[v] / sum : 1.0 / static_cast<double>(choices);
    }
}

void ParzenEstimator::sample(std::mt19937_64& rng, std::vector<std::uint32_t>& digits) const {
    digits.assign(m_axes.size(), 0);
    std::size_t row = 0;
    if (m_settings.multivariate)
        row = pick(rng, m_weightCumulative.data(), m_kernels);
    for (std::size_t d : m_active) {
        const double* cumulative = m_cumulative.data() + row * m_rowSize + m_offset[d];
        digits[d] = static_cast<std::uint32_t>(pick(rng, cumulative, m_axes[d].size()));
    }
}

double ParzenEstimator::logDensity(std::span<const std::uint32_t> digits) const {
    if (!m_settings.multivariate) {
        double sum = 0.0;
        for (std::size_t d : m_active)
            sum += m_logMass[m_offset[d] + digits[d]];
        return sum;
    }
    // log sum_i w_i prod_d k_i(x_d), accumulated relative to the largest term so far.
    double largest = -std::numeric_limits<double>::infinity();
    double sum = 0.0;
    for (std::size_t i = 0; i < m_kernels; ++i) {
        const double* row = m_logMass.data() + i * m_rowSize;
        double term = m_logWeight[i];
        for (std::size_t d : m_active)
            term += row[m_offset[d] + digits[d]];
        if (term > largest) {
            sum = sum * std::exp(largest - term) + 1.0;
            largest = term;
        } else {
            sum += std::exp(term - largest);
        }
    }
    return largest + std::log(sum);
}

} // namespace ts
