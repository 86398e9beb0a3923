#include "util/Statistics.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ts {

Statistics summarize(std::span<const double> samples) {
    Statistics result;
    if (samples.empty()) {
        return result;
    }
    const auto n = samples.size();
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    result.min = sorted.front();
    result.median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    double sum = 0.0;
    for (double sample : sorted) {
        sum += sample;
    }
    result.mean = sum / static_cast<double>(n);
    if (n >= 2) {
        double squares = 0.0;
        for (double sample : sorted) {
            squares += (sample - result.mean) * (sample - result.mean);
        }
        result.stdev = std::sqrt(squares / static_cast<double>(n - 1));
    }
    result.cv = result.mean != 0.0 ? result.stdev / result.mean : 0.0;
    return result;
}

} // namespace ts
