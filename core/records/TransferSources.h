#pragma once

#include "models/PriorSource.h"
#include "models/TransferPrior.h"
#include "records/Dataset.h"

#include <memory>
#include <vector>

namespace ts {

// A replay dataset as a prior source: every entry, and the product's absent configs taught as invalid.
PriorSource priorSource(const Dataset& dataset);

// The transfer prior for datasets[target] built from the other datasets of the same kernel (same kernel name
// and parameter names), i.e. leave one device out; null when there is no such other dataset.
std::shared_ptr<const TransferPrior>
leaveOneOutPrior(const std::vector<std::shared_ptr<const Dataset>>& datasets, std::size_t target,
                 int threads);

} // namespace ts
