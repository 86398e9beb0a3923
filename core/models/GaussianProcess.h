#pragma once

#include "space/SearchSpace.h"
#include "trial/Trial.h"

#include <span>
#include <vector>

namespace ts {

// A Gaussian process of log time over a space's configs on an ordinal encoding: every parameter with more
// than one value becomes its value's rank among the parameter's values, scaled to [0, 1] (neighbouring
// values are neighbouring points). The kernel is Matern 5/2 with a lengthscale per parameter (ARD), a
// signal variance and a noise variance, fitted to the trials' standardised log times by maximising the
// marginal likelihood times weak priors (gradient ascent on the log hyperparameters, each fit starting from
// the last one's). A trial with no time (invalid, failed) counts as the slowest Ok time so far, as Optuna's
// GPSampler tells its infeasible trials: the process learns where nothing good is. Cheap while there are
// tens to a few hundred trials, and smooth where the trees of a small-data forest are blocky: the
// model-guided search's first phase (options `gp_until`, `gp_every`).
class GaussianProcess {
public:
    explicit GaussianProcess(const SearchSpace& space);

    // Refits to the trials (none while fewer than two have an Ok time).
    void fit(std::span<const Trial> trials);
    // Fitted to trials of which at least two have an Ok time.
    bool isFitted() const { return m_points >= 2; }
    // Mean and standard deviation of the log time at each config.
    void predict(std::span<const SearchSpace::Index> configs, std::vector<double>& meanLog,
                 std::vector<double>& sdLog) const;

private:
    std::vector<double> point(SearchSpace::Index index) const;
    // Cholesky factor of the kernel matrix at the hyperparameters and the log marginal likelihood plus log
    // prior; with `gradient`, its gradient with respect to the log hyperparameters.
    double objective(std::vector<double>* gradient);
    void kernelMatrix(std::vector<double>& gram, std::vector<double>* slopes) const;
    static double kernel(std::span<const double> a, std::span<const double> b,
                         std::span<const double> inverseSquared, double signal);

    const SearchSpace* m_space;
    std::vector<std::size_t> m_dims;               // parameters with more than one value
    std::vector<std::vector<double>> m_coordinate; // per parameter, per value position: its point in [0, 1]
    std::vector<double> m_logParams;               // log inverse squared lengthscales, log signal, log noise
    std::vector<double> m_x;                       // n x dims, row-major
    std::vector<double> m_y;                       // standardised log times
    double m_yMean = 0.0, m_yScale = 1.0;
    std::size_t m_points = 0;
    std::vector<double> m_chol;  // lower Cholesky factor of K + noise I
    std::vector<double> m_alpha; // (K + noise I)^-1 y
};

} // namespace ts
