#pragma once

#include "space/Parameter.h"

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace ts {

// A Parzen estimator over the value positions of a space's parameters, as in Optuna's TPE: one kernel per
// observation plus a prior kernel. Over an ordered numeric parameter a kernel is a Gaussian truncated to the
// parameter's range and discretised onto its values (the mass of the interval that rounds to each value);
// over a categorical parameter it is a smoothed categorical distribution.
//
// Univariate: the parameters are independent, each with its own mixture of the kernels (Optuna's default).
// Multivariate: a draw takes every parameter from one kernel and the density is the mixture of the products.
class ParzenEstimator {
public:
    // How one parameter is modelled: its values as points on a line, or as unordered categories.
    struct Axis {
        bool categorical = false;
        std::vector<double> centre;  // per value position
        std::vector<double> cellLow; // per value position: the interval that rounds to the value
        std::vector<double> cellHigh;
        double low = 0.0; // smallest and largest centre
        double high = 0.0;
        double lowEdge = 0.0; // the truncation range: the outer ends of the outer cells
        double highEdge = 0.0;

        std::size_t size() const { return centre.size(); }

        // Strings and bools are categorical. Numbers lie at their position in the list; with
        // logPowersOfTwo, a list of three or more positive powers of two lies at log2 of the values instead
        // (the same line when no power is skipped).
        static Axis of(const Parameter& parameter, bool logPowersOfTwo);
    };

    struct Settings {
        double priorWeight = 1.0;
        bool magicClip = true;  // floor the bandwidths at range / min(100, 1 + kernels)
        bool endpoints = false; // let the outermost observations use the distance to the range's ends
        bool multivariate = false;
    };

    // observations[k] holds the value positions of one config (one per axis); weights[k] its unnormalised
    // weight. With no observation the estimator is the prior alone.
    ParzenEstimator(const std::vector<Axis>& axes,
                    const std::vector<std::span<const std::uint32_t>>& observations,
                    const std::vector<double>& weights, const Settings& settings);

    // Writes one draw's value positions into digits (resized to the number of axes).
    void sample(std::mt19937_64& rng, std::vector<std::uint32_t>& digits) const;
    double logDensity(std::span<const std::uint32_t> digits) const;

private:
    // Per kernel and axis, the kernel's probability of each value of the axis, written at
    // masses[offset of the axis + position].
    void addNumericKernels(std::size_t axis, const std::vector<std::span<const std::uint32_t>>& observations,
                           std::vector<std::vector<double>>& masses) const;
    void addCategoricalKernels(std::size_t axis,
                               const std::vector<std::span<const std::uint32_t>>& observations,
                               std::vector<std::vector<double>>& masses) const;

    std::vector<Axis> m_axes;
    Settings m_settings;
    std::vector<std::size_t> m_active; // axes with more than one value
    std::vector<std::size_t> m_offset; // per axis: where its values start in a row
    std::size_t m_rowSize = 0;
    std::size_t m_kernels = 0;
    std::vector<double> m_logWeight;        // per kernel (normalised)
    std::vector<double> m_weightCumulative; // per kernel
    // Multivariate: kernel-major rows of m_rowSize entries. Univariate: a single row, the mixture.
    std::vector<double> m_logMass;
    std::vector<double> m_cumulative; // per row and axis, running sums of the masses for sampling
};

} // namespace ts
