#pragma once

#include "HostBuffer.h"

#include "kernels/KernelSpec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ts::worker {

// Compares a run's output buffers with the reference element by element:
// |out - ref| <= absolute + relative * |ref| (NaN fails). Shared by the cpu and cuda runners.
class OutputCheck {
public:
    explicit OutputCheck(const Tolerance& tolerance) : m_tolerance(tolerance) {}

    // `buffer` holds the run's output on the host; `expected` the reference's, element for element.
    void compare(const HostBuffer& buffer, const std::vector<double>& expected);

    // Puts max_abs_error and mismatches into the metrics; a one-line "wrong result: ..." naming the first
    // differing element when any differ.
    std::optional<std::string> verdict(std::map<std::string, double>& metrics) const;

private:
    Tolerance m_tolerance;
    double m_maxError = 0.0;
    std::int64_t m_mismatches = 0;
    std::optional<std::string> m_first;
};

} // namespace ts::worker
