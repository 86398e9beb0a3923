#include "models/XgbSettings.h"

#include <fmt/format.h>

namespace ts {

std::map<std::string, std::string> XgbSettings::parameters() const {
    return {{"objective", objective},
            {"tree_method", "hist"},
            {"max_depth", std::to_string(maxDepth)},
            {"eta", fmt::format("{}", eta)},
            {"min_child_weight", fmt::format("{}", minChildWeight)},
            {"subsample", fmt::format("{}", subsample)},
            {"colsample_bytree", fmt::format("{}", columnSample)},
            {"seed", std::to_string(seed % 2147483647)},
            {"nthread", std::to_string(threads)},
            {"verbosity", "0"}};
}

} // namespace ts
