#pragma once

#include "models/ConfigFeatureTable.h"
#include "models/CostModel.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace ts {

// What a model-guided strategy asks for when it makes a performance model: one member of an ensemble of
// `members` (1 for a single model). Members of one ensemble get different seeds and should differ (e.g. by
// subsampling) when there are several, since their spread is the strategy's uncertainty.
struct CostModelRequest {
    const SearchSpace* space = nullptr; // outlives the model
    std::uint64_t seed = 0;             // drawn from the strategy's seeded rng, one per model
    std::size_t member = 0;
    std::size_t members = 1;
    // Inputs known for the configs before measuring (a static profile's hardware features) that the
    // strategy was asked to use; null when none. A model may take them as inputs or ignore them.
    std::shared_ptr<const ConfigFeatureTable> features = nullptr;
};

// Makes the cost models a strategy trains and queries (through CostModel only). Called on the strategy's
// thread during reset().
using CostModelFactory = std::function<std::unique_ptr<CostModel>(const CostModelRequest&)>;

} // namespace ts
