#pragma once

#include "datasets/Dataset.h"
#include "models/PriorSource.h"
#include "models/TransferPrior.h"

#include <memory>
#include <vector>

namespace ts {

// A replay dataset as a prior source: every entry, and the product's absent configs taught as invalid. With
// `hardware`, its static profile's features with its GPU's (transferFeatures) when it has a profile.
PriorSource priorSource(const Dataset& dataset, bool hardware = false);

// The transfer prior for datasets[target] built from the other datasets of the same kernel (same kernel name
// and parameter names), i.e. leave one device out; null when there is no such other dataset. With
// `hardware`, hardware-aware (TransferPrior) when the target and every source have a static profile.
std::shared_ptr<const TransferPrior>
leaveOneOutPrior(const std::vector<std::shared_ptr<const Dataset>>& datasets, std::size_t target, int threads,
                 bool hardware = false);

// The transfer prior for `target` built from `sources` (replay datasets given by name, of any kernel with the
// target's parameter names); null when none has them. With `hardware`, as leaveOneOutPrior.
std::shared_ptr<const TransferPrior> namedPrior(const Dataset& target,
                                                const std::vector<std::shared_ptr<const Dataset>>& sources,
                                                int threads, bool hardware = false);

} // namespace ts
