#pragma once

#include "hardware/CpuInfo.h"
#include "kernels/KernelSpec.h"
#include "trial/Trial.h"

#include <optional>
#include <string>
#include <vector>

namespace ts {

// One trial on a roofline chart.
struct RooflinePoint {
    std::size_t row = 0;    // position of the trial in the list given to Roofline::of
    double intensity = 0.0; // FLOP per byte: the spec's flops / bytes at the size (the same for every trial)
    double gflops = 0.0;    // the spec's flops at the size / the measured time
};

// The roofline of a kernel's trials on this machine's CPU (Williams et al.): the peak compute line, the
// memory bandwidth slope (attainable GFLOP/s = bandwidth x intensity) and one point per Ok trial. Plain data
// computed in core; the GUI only draws it. Peaks come from CpuInfo (peakGflops, memoryBandwidthGBs) and are
// unset when CpuInfo does not know them; `problem` then says what is missing.
struct Roofline {
    std::optional<double> peakGflops;
    std::optional<double> bandwidthGBs;
    std::optional<double> intensity; // the kernel's, when the spec gives flops and bytes
    std::vector<RooflinePoint> points;
    std::string problem; // one sentence per missing piece, empty when everything is known

    // The ridge point: the intensity at which the bandwidth slope meets the peak compute line.
    std::optional<double> ridge() const;

    // Trials that are not Ok, or have no positive time, get no point. Times are in ms (Measurement).
    static Roofline of(const CpuInfo& cpu, const KernelSpec& spec, const ProblemSize& size,
                       const std::vector<Trial>& trials);
};

} // namespace ts
