#include "strategies/RandomSample.h"

namespace ts {

std::vector<SearchSpace::Index> RandomSample::propose(std::size_t maxCount) {
    return drawUnproposed(maxCount);
}

} // namespace ts
