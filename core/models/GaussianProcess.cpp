#include "models/GaussianProcess.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ts {

namespace {

constexpr double kMinNoise = 1e-6;  // noise variance floor (standardised log time)
constexpr int kFirstFitSteps = 120; // gradient steps of the first fit
constexpr int kRefitSteps = 30;     // ... of every later one, from the last fit's hyperparameters
constexpr double kStep = 0.05;      // Adam's step on the log hyperparameters
constexpr double kSqrt5 = 2.23606797749979;

// In-place lower Cholesky factor of the n x n matrix `a` (row-major); false when it is not positive definite.
bool cholesky(std::vector<double>& a, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) {
        double diagonal = a[j * n + j];
        for (std::size_t k = 0; k < j; ++k)
            diagonal -= a[j * n + k] * a[j * n + k];
        if (!(diagonal > 0.0))
            return false;
        const double root = std::sqrt(diagonal);
        a[j * n + j] = root;
        for (std::size_t i = j + 1; i < n; ++i) {
            double value = a[i * n + j];
            for (std::size_t k = 0; k < j; ++k)
                value -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = value / root;
        }
        for (std::size_t i = 0; i < j; ++i)
            a[i * n + j] = 0.0;
    }
    return true;
}

// Solves L v = b in place (L lower triangular, row-major n x n).
void forwardSolve(const std::vector<double>& l, std::size_t n, std::span<double> b) {
    for (std::size_t i = 0; i < n; ++i) {
        double value = b[i];
        for (std::size_t k = 0; k < i; ++k)
            value -= l[i * n + k] * b[k];
        b[i] = value / l[i * n + i];
    }
}

// Solves L^T v = b in place.
void backwardSolve(const std::vector<double>& l, std::size_t n, std::span<double> b) {
    for (std::size_t i = n; i-- > 0;) {
        double value = b[i];
        for (std::size_t k = i + 1; k < n; ++k)
            value -= l[k * n + i] * b[k];
        b[i] = value / l[i * n + i];
    }
}

} // namespace

GaussianProcess::GaussianProcess(const SearchSpace& space) : m_space(&space) {
    for (std::size_t p = 0; p < space.dimension(); ++p) {
        const std::vector<Value>& values = space.parameters()[p].values;
        std::vector<double> coordinate(values.size(), 0.0);
        if (values.size() > 1) {
            m_dims.push_back(p);
            std::vector<std::size_t> order(values.size());
            std::iota(order.begin(), order.end(), 0);
            if (std::all_of(values.begin(), values.end(), isNumeric))
                std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                    return toNumber(values[a]) < toNumber(values[b]);
                });
            for (std::size_t rank = 0; rank < order.size(); ++rank)
                coordinate[order[rank]] = double(rank) / double(values.size() - 1);
        }
        m_coordinate.push_back(std::move(coordinate));
    }
}

std::vector<double> GaussianProcess::point(SearchSpace::Index index) const {
    std::vector<std::uint32_t> digits = m_space->digits(index);
    std::vector<double> x;
    x.reserve(m_dims.size());
    for (std::size_t p : m_dims)
        x.push_back(m_coordinate[p][digits[p]]);
    return x;
}

double GaussianProcess::kernel(std::span<const double> a, std::span<const double> b,
                               std::span<const double> inverseSquared, double signal) {
    double r2 = 0.0;
    for (std::size_t d = 0; d < a.size(); ++d)
        r2 += inverseSquared[d] * (a[d] - b[d]) * (a[d] - b[d]);
    const double r = std::sqrt(r2);
    return signal * (1.0 + kSqrt5 * r + 5.0 / 3.0 * r2) * std::exp(-kSqrt5 * r);
}

// The kernel matrix with the noise on its diagonal; with `slopes`, d k / d r^2 at every pair.
void GaussianProcess::kernelMatrix(std::vector<double>& gram, std::vector<double>* slopes) const {
    const std::size_t n = m_points, dims = m_dims.size();
    const double signal = std::exp(m_logParams[dims]);
    const double noise = kMinNoise + std::exp(m_logParams[dims + 1]);
    std::vector<double> inverseSquared(dims);
    for (std::size_t d = 0; d < dims; ++d)
        inverseSquared[d] = std::exp(m_logParams[d]);
    gram.assign(n * n, 0.0);
    if (slopes)
        slopes->assign(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        gram[i * n + i] = signal + noise;
        for (std::size_t j = 0; j < i; ++j) {
            double r2 = 0.0;
            for (std::size_t d = 0; d < dims; ++d) {
                const double delta = m_x[i * dims + d] - m_x[j * dims + d];
                r2 += inverseSquared[d] * delta * delta;
            }
            const double r = std::sqrt(r2);
            const double decay = std::exp(-kSqrt5 * r);
            gram[i * n + j] = gram[j * n + i] = signal * (1.0 + kSqrt5 * r + 5.0 / 3.0 * r2) * decay;
            if (slopes)
                (*slopes)[i * n + j] = (*slopes)[j * n + i] =
                    -5.0 / 6.0 * signal * (1.0 + kSqrt5 * r) * decay;
        }
    }
}

double GaussianProcess::objective(std::vector<double>* gradient) {
    const std::size_t n = m_points, dims = m_dims.size();
    std::vector<double> gram, slopes;
    kernelMatrix(gram, gradient ? &slopes : nullptr);
    std::vector<double> noiseless = gram;
    const double noise = kMinNoise + std::exp(m_logParams[dims + 1]);
    for (std::size_t i = 0; i < n; ++i)
        noiseless[i * n + i] -= noise;
    m_chol = std::move(gram);
    if (!cholesky(m_chol, n)) {
        m_chol.clear(); // predict() gives the prior until a fit succeeds
        return -HUGE_VAL;
    }
    m_alpha = m_y;
    forwardSolve(m_chol, n, m_alpha);
    double value = 0.0;
    for (double v : m_alpha)
        value -= 0.5 * v * v;
    backwardSolve(m_chol, n, m_alpha);
    for (std::size_t i = 0; i < n; ++i)
        value -= std::log(m_chol[i * n + i]);
    // Weak priors: on each inverse squared lengthscale t, -(0.1 / t + 0.1 t); on the signal variance a
    // Gamma(2, 1); on the noise a Gamma(1.1, 30) (small, for near-deterministic times).
    for (std::size_t d = 0; d < dims; ++d) {
        const double t = std::exp(m_logParams[d]);
        value -= 0.1 / t + 0.1 * t;
    }
    const double signal = std::exp(m_logParams[dims]);
    const double noiseExcess = std::exp(m_logParams[dims + 1]);
    value += m_logParams[dims] - signal + 0.1 * m_logParams[dims + 1] - 30.0 * noiseExcess;
    if (!gradient)
        return value;
    // d/dpsi of the log marginal likelihood = 1/2 tr((alpha alpha^T - K^-1) dK/dpsi).
    std::vector<double> inverse(n * n, 0.0);
    std::vector<double> column(n);
    for (std::size_t j = 0; j < n; ++j) {
        std::fill(column.begin(), column.end(), 0.0);
        column[j] = 1.0;
        forwardSolve(m_chol, n, column);
        backwardSolve(m_chol, n, column);
        for (std::size_t i = 0; i < n; ++i)
            inverse[i * n + j] = column[i];
    }
    gradient->assign(dims + 2, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            const double w = m_alpha[i] * m_alpha[j] - inverse[i * n + j];
            (*gradient)[dims] += 0.5 * w * noiseless[i * n + j];
            if (i == j) {
                (*gradient)[dims + 1] += 0.5 * w * noiseExcess;
                continue;
            }
            for (std::size_t d = 0; d < dims; ++d) {
                const double delta = m_x[i * dims + d] - m_x[j * dims + d];
                (*gradient)[d] += 0.5 * w * slopes[i * n + j] * std::exp(m_logParams[d]) * delta * delta;
            }
        }
    }
    for (std::size_t d = 0; d < dims; ++d) {
        const double t = std::exp(m_logParams[d]);
        (*gradient)[d] += 0.1 / t - 0.1 * t;
    }
    (*gradient)[dims] += 1.0 - signal;
    (*gradient)[dims + 1] += 0.1 - 30.0 * noiseExcess;
    return value;
}

void GaussianProcess::fit(std::span<const Trial> trials) {
    const std::size_t dims = m_dims.size();
    m_x.clear();
    std::vector<double> y;
    auto timed = [](const Trial& trial) {
        return trial.measurement.status == MeasureStatus::Ok && trial.measurement.objective > 0.0;
    };
    double worst = -HUGE_VAL;
    std::size_t ok = 0;
    for (const Trial& trial : trials)
        if (timed(trial)) {
            worst = std::max(worst, std::log(trial.measurement.objective));
            ++ok;
        }
    m_points = 0;
    if (ok < 2)
        return;
    for (const Trial& trial : trials) {
        std::vector<double> x = point(trial.index);
        m_x.insert(m_x.end(), x.begin(), x.end());
        y.push_back(timed(trial) ? std::log(trial.measurement.objective) : worst);
    }
    m_points = y.size();
    m_yMean = std::accumulate(y.begin(), y.end(), 0.0) / double(m_points);
    double variance = 0.0;
    for (double v : y)
        variance += (v - m_yMean) * (v - m_yMean);
    m_yScale = std::max(1e-9, std::sqrt(variance / double(m_points)));
    m_y.clear();
    for (double v : y)
        m_y.push_back((v - m_yMean) / m_yScale);
    const bool first = m_logParams.empty();
    if (first) {
        m_logParams.assign(dims + 2, 0.0);
        m_logParams[dims + 1] = std::log(1e-3);
    }
    // Adam on the log hyperparameters; the best point seen is kept.
    std::vector<double> moment(dims + 2, 0.0), second(dims + 2, 0.0), gradient;
    std::vector<double> best = m_logParams;
    double bestValue = -HUGE_VAL;
    const int steps = first ? kFirstFitSteps : kRefitSteps;
    for (int step = 1; step <= steps; ++step) {
        const double value = objective(&gradient);
        if (!std::isfinite(value))
            break;
        if (value > bestValue) {
            bestValue = value;
            best = m_logParams;
        }
        for (std::size_t k = 0; k < m_logParams.size(); ++k) {
            moment[k] = 0.9 * moment[k] + 0.1 * gradient[k];
            second[k] = 0.999 * second[k] + 0.001 * gradient[k] * gradient[k];
            const double mHat = moment[k] / (1.0 - std::pow(0.9, step));
            const double vHat = second[k] / (1.0 - std::pow(0.999, step));
            m_logParams[k] =
                std::clamp(m_logParams[k] + kStep * mHat / (std::sqrt(vHat) + 1e-8), -12.0, 12.0);
        }
    }
    m_logParams = best;
    if (!std::isfinite(objective(nullptr))) {
        // Not positive definite at the best point (duplicated configs with no noise): more noise.
        m_logParams[dims + 1] = std::log(1e-2);
        objective(nullptr);
    }
}

void GaussianProcess::predict(std::span<const SearchSpace::Index> configs, std::vector<double>& meanLog,
                              std::vector<double>& sdLog) const {
    const std::size_t n = m_points;
    meanLog.assign(configs.size(), m_yMean);
    sdLog.assign(configs.size(), m_yScale);
    if (!isFitted() || m_chol.size() != n * n)
        return;
    const std::size_t dims = m_dims.size();
    const double signal = std::exp(m_logParams[dims]);
    std::vector<double> inverseSquared(dims);
    for (std::size_t d = 0; d < dims; ++d)
        inverseSquared[d] = std::exp(m_logParams[d]);
    std::vector<double> k(n);
    for (std::size_t c = 0; c < configs.size(); ++c) {
        std::vector<double> x = point(configs[c]);
        for (std::size_t i = 0; i < n; ++i)
            k[i] = kernel(x, std::span<const double>(m_x).subspan(i * dims, dims), inverseSquared, signal);
        double mean = 0.0;
        for (std::size_t i = 0; i < n; ++i)
            mean += k[i] * m_alpha[i];
        forwardSolve(m_chol, n, k);
        double explained = 0.0;
        for (double v : k)
            explained += v * v;
        meanLog[c] = m_yMean + m_yScale * mean;
        sdLog[c] = m_yScale * std::sqrt(std::max(1e-12, signal - explained));
    }
}

} // namespace ts
