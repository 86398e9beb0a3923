#pragma once

#include "models/PriorSource.h"
#include "models/TransferPrior.h"
#include "store/RecordStore.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ts {

// Earlier sessions of the same kernel in a records database as transfer-prior sources: every session with
// the kernel's name and exactly the space's parameter names, other than `excluded` (the session being run
// or resumed), each with its trials located in `space` (configs outside the space are left out). Sessions
// with fewer than two Ok trials there are skipped, and so are those `accept` (when given) refuses. The
// space must outlive the sources.
std::vector<PriorSource> recordPriorSources(const RecordStore& store, const std::string& kernel,
                                            const SearchSpace& space, std::int64_t excluded = 0,
                                            const std::function<bool(const SessionRecord&)>& accept = {});

// The transfer prior built from those sessions; null when there are none (a cold start).
std::shared_ptr<const TransferPrior> recordTransferPrior(const RecordStore& store, const std::string& kernel,
                                                         const SearchSpace& space, std::int64_t excluded = 0);

} // namespace ts
