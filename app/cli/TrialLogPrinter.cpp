#include "TrialLogPrinter.h"

#include <cstdio>
#include <fmt/format.h>

namespace ts::cli {

void TrialLogPrinter::trialFinished(const Trial& trial) {
    const Measurement& m = trial.measurement;
    std::string outcome = toString(m.status);
    if (m.status == MeasureStatus::Ok)
        outcome += fmt::format(" {:.6g} ms", m.objective);
    std::fprintf(stderr, "trial %lld committed: %s\n", static_cast<long long>(trial.number + 1),
                 outcome.c_str());
    std::fflush(stderr);
}

} // namespace ts::cli
