#pragma once

#include "datasets/Dataset.h"

#include <string>
#include <vector>

namespace ts {

// The dataset with only the configs that satisfy every constraint (Python-like expressions over its
// parameters). Configs dropped this way count as not satisfying the restrictions: absent in constrained
// mode, invalid evaluations in product mode. Throws Error when a constraint does not parse, names something
// that is not a parameter, or when no config of the dataset satisfies them all.
Dataset restrictDataset(const Dataset& dataset, const std::vector<std::string>& constraints);

} // namespace ts
