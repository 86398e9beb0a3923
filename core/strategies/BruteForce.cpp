#include "strategies/BruteForce.h"

namespace ts {

std::vector<SearchSpace::Index> BruteForce::propose(std::size_t maxCount) {
    std::vector<SearchSpace::Index> batch;
    while (batch.size() < maxCount && m_next < domainSize()) {
        SearchSpace::Index index = space().domainAt(mode(), m_next++);
        if (markProposed(index))
            batch.push_back(index);
    }
    return batch;
}

} // namespace ts
