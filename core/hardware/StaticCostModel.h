#pragma once

#include "hardware/GpuSpec.h"
#include "hardware/StaticProfile.h"
#include "models/CostModel.h"

#include <functional>
#include <optional>

namespace ts {

// A hardware-aware cost model usable before any measurement: the roofline time of the kernel's FLOP and byte
// formulas on the GPU's datasheet peaks, divided by an efficiency made of the config's parallelism
// (occupancy, with latency hiding assumed to saturate at 50 %), how its grid fills the SMs (idle SMs, the
// partial last wave) and a penalty for register spills. A config that does not compile or fit predicts
// kUnfitMs.
//
// MEASURED, IT RANKS GEMM BACKWARDS: on an H200 (gemm fp32 4096^3, 100 uniformly drawn configs) the Spearman
// correlation of its estimates with the measured times is -0.30 (docs/benchmarks.md). Its constants (the 50 %
// saturation, the spill penalty) are guesses, and it knows nothing of a config's instruction mix (register
// tile, vector widths, bank conflicts): it rewards occupancy where the fastest configs trade occupancy for
// large register tiles, and configs with equal occupancy and grid shape tie. No strategy uses it by default;
// use it as a resource sanity check, not as a ranking.
//
// update() keeps the ranking and only calibrates the scale: the median ratio of measured to predicted time
// over the Ok trials, so predictions come out in milliseconds of the machine at hand.
class StaticCostModel : public CostModel {
public:
    static constexpr double kUnfitMs = 1.0e9;
    // Profiles for configs of the space the trials index (e.g. CudaStaticAnalyzer::analyze); called from
    // predict() and update(), possibly from several threads.
    using ProfileSource = std::function<std::vector<StaticProfile>(std::span<const SearchSpace::Index>)>;

    // `flops` and `bytes`: the kernel's totals at the problem size (nullopt when the spec has no formula);
    // `peakFlops` in FLOP/s (the FP32 peak, or the tensor peak for fp16/bf16 kernels).
    StaticCostModel(GpuSpec gpu, std::optional<double> flops, std::optional<double> bytes, double peakFlops,
                    ProfileSource source);

    std::string name() const override { return "static"; }
    void update(std::span<const Trial> trials) override;
    bool isTrained() const override { return true; }
    std::vector<double> predict(std::span<const SearchSpace::Index> configs) const override;
    std::vector<char> save() const override;
    void load(const std::vector<char>& bytes) override;

    // The factors the roofline time is divided by, each in (0, 1], for a config that fits.
    struct Efficiency {
        double hiding = 1.0; // latency hiding: sqrt(min(1, occupancy / 0.5))
        double fill = 1.0;   // share of the SMs the grid reaches: min(1, blocks / SMs)
        double tail = 1.0;   // how full the waves are: waves / ceil(waves)
        double spill = 1.0;  // 1 / (1 + spilled bytes / 256)
    };
    Efficiency efficiency(const StaticProfile& profile) const;
    // Uncalibrated estimate in milliseconds: the roofline time over the product of the efficiencies.
    double estimateMs(const StaticProfile& profile) const;
    // The roofline bound alone (ms): max(flops / peak, bytes / bandwidth); 1 when neither formula is known.
    double rooflineMs() const;
    double scale() const { return m_scale; }

private:
    GpuSpec m_gpu;
    std::optional<double> m_flops;
    std::optional<double> m_bytes;
    double m_peakFlops;
    ProfileSource m_source;
    double m_scale = 1.0;
};

} // namespace ts
