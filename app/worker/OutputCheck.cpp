#include "OutputCheck.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace ts::worker {

void OutputCheck::compare(const HostBuffer& b, const std::vector<double>& expectedValues) {
    for (std::int64_t e = 0; e < b.spec().count; ++e) {
        const double expected = expectedValues[static_cast<std::size_t>(e)];
        const double actual = b.element(e);
        const double error = std::abs(actual - expected);
        const bool ok =
            error <= m_tolerance.absolute + m_tolerance.relative * std::abs(expected); // NaN fails
        if (!std::isnan(error))
            m_maxError = std::max(m_maxError, error);
        if (!ok && m_mismatches++ == 0)
            m_first =
                fmt::format("{}[{}] is {:.9g} but the reference gives {:.9g} (tolerance: absolute {:g} + "
                            "relative {:g})",
                            b.spec().name, e, actual, expected, m_tolerance.absolute, m_tolerance.relative);
    }
}

std::optional<std::string> OutputCheck::verdict(std::map<std::string, double>& metrics) const {
    metrics["max_abs_error"] = m_maxError;
    metrics["mismatches"] = static_cast<double>(m_mismatches);
    if (m_first)
        return fmt::format("wrong result: {}; {} element(s) differ", *m_first, m_mismatches);
    return std::nullopt;
}

} // namespace ts::worker
