#pragma once

#include "space/Parameter.h"
#include "trial/Trial.h"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace ts {

// One parameter's main effect on a session's log time.
struct ParameterEffect {
    std::string parameter;
    std::size_t position = 0; // in the space's parameter list
    double importance = 0.0;  // share of the summed main-effect variances, in [0, 1]
    double variance = 0.0;    // variance of the main effect over the parameter's values, (log ms)^2
    double spread = 1.0;      // slowest / fastest mean predicted time over its values (>= 1)
    Value bestValue;          // the value whose mean predicted time is the fastest
    std::size_t values = 0;   // distinct values among the trials used
};

struct ImportanceResult {
    std::vector<ParameterEffect> ranked; // most important first; equal importances in parameter order
    std::size_t trials = 0;              // successful trials the model was fitted to
    std::size_t excluded = 0;            // trials left out (failed, no positive finite time, wrong size)
};

// Parameter importance of a session (what Optuna Dashboard shows), from its own trials. The method, a
// functional-ANOVA decomposition (Hutter et al., ICML 2014) of a model of the measured log time:
//
// 1. Data: the trials whose status is Ok and whose time is finite and positive; the others are left out
//    (and counted), since a failed config has no time to explain. At most kMaxTraining of them, evenly
//    spaced in evaluation order.
// 2. Model: XGBoost (the cost model's settings: XgbSettings defaults, seed 0, one thread) regressing log
//    time on one ordinal feature per parameter (the value's rank: numeric order for numbers, the space's
//    order otherwise), so it is defined for discrete, string and boolean parameters alike.
// 3. Main effect of parameter p at value v: the model's mean prediction over the background set (at most
//    kMaxBackground of the trials used, evenly spaced) with p set to v, over every value of p seen there
//    (at most kMaxEffectValues of them, spread evenly over the value order, for a parameter with more). Its
//    variance over those values, each weighted equally (fANOVA's uniform measure), is V_p.
// 4. importance_p = V_p / sum of V_q, so the importances sum to 1 (all 0 when no parameter changes the
//    prediction); spread_p = exp(max - min of p's main effect).
//
// Deterministic: the same trials give the same result on every run and machine thread count. Interactions
// are not attributed to any parameter; setting p to v at a background config may leave the constrained
// space, as in fANOVA over a box.
class ParameterImportance {
public:
    static constexpr std::size_t kMinTrials = 8;
    static constexpr std::size_t kMaxTraining = 20000;
    static constexpr std::size_t kMaxBackground = 512;
    static constexpr std::size_t kMaxEffectValues = 64;
    // Short name of the method, for tables and chart titles.
    static constexpr const char* kMethod = "fANOVA main effects of an XGBoost model of log time";

    // Trials of `trials` that the analysis uses (see 1. above) for a space of `parameterCount` parameters.
    static std::size_t usableCount(std::span<const Trial> trials, std::size_t parameterCount);

    // Throws Error when fewer than kMinTrials trials are usable.
    static ImportanceResult compute(const std::vector<Parameter>& parameters, std::span<const Trial> trials);
};

} // namespace ts
