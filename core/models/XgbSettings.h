#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ts {

// Training settings of the XGBoost models. Defaults suit the few hundred rows a tuning run has.
struct XgbSettings {
    std::string objective = "reg:squarederror"; // or "rank:pairwise", "binary:logistic"
    int rounds = 60;                            // most boosting rounds
    int earlyStoppingRounds = 10;               // on a held-out slice, when there are enough rows
    int minRowsForHoldOut = 40;
    double holdOutFraction = 0.2;
    int maxDepth = 6;
    double eta = 0.3;
    double minChildWeight = 1.0;
    double subsample = 1.0;
    double columnSample = 1.0;
    std::uint64_t seed = 0;
    int threads = 1;

    std::map<std::string, std::string> parameters() const;
};

} // namespace ts
