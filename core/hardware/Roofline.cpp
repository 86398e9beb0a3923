#include "hardware/Roofline.h"

#include "kernels/KernelSizes.h"

#include <fmt/format.h>

#include <cctype>

namespace ts {

std::optional<double> Roofline::ridge() const {
    if (!peakGflops || !bandwidthGBs || *bandwidthGBs <= 0)
        return std::nullopt;
    return *peakGflops / *bandwidthGBs;
}

Roofline Roofline::of(const CpuInfo& cpu, const KernelSpec& spec, const ProblemSize& size,
                      const std::vector<Trial>& trials) {
    Roofline r;
    r.peakGflops = cpu.peakGflops();
    r.bandwidthGBs = cpu.memoryBandwidthGBs;
    std::vector<std::string> missing;
    if (!r.peakGflops)
        missing.push_back("the CPU's peak GFLOP/s is unknown (it needs the physical cores, the clock and a "
                          "known SIMD width)");
    if (!r.bandwidthGBs)
        missing.push_back(cpu.memoryBandwidthSource.empty() ? "the memory bandwidth is unknown"
                                                            : cpu.memoryBandwidthSource);
    const std::optional<double> flops = kernelFlops(spec, size);
    const std::optional<double> bytes = kernelBytes(spec, size);
    if (!flops || !bytes || *flops <= 0 || *bytes <= 0) {
        missing.push_back(fmt::format("kernel {} gives no flops and bytes expressions, so its trials have no "
                                      "arithmetic intensity",
                                      spec.name));
    } else {
        r.intensity = *flops / *bytes;
        for (std::size_t row = 0; row < trials.size(); ++row) {
            const Measurement& m = trials[row].measurement;
            if (m.status != MeasureStatus::Ok || !(m.objective > 0))
                continue;
            r.points.push_back({row, *r.intensity, *flops / (m.objective * 1e-3) / 1e9});
        }
    }
    for (std::string& sentence : missing) {
        sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
        r.problem += (r.problem.empty() ? "" : " ") + sentence + (sentence.back() == '.' ? "" : ".");
    }
    return r;
}

} // namespace ts
