#pragma once

#include "models/ConfigFeatureTable.h"
#include "space/SearchSpace.h"
#include "trial/Measurement.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ts {

// Measurements of the same kernel made elsewhere (another device, another problem size) that can
// warm-start a search: the configs by product index of the source's own space, with what they measured.
struct PriorSource {
    std::string label;                  // where it comes from, e.g. "RTX_2080_Ti.json.gz" or "session 12"
    const SearchSpace* space = nullptr; // must outlive the use of the source
    std::vector<std::pair<SearchSpace::Index, Measurement>> entries;
    // True for a brute-forced product (a replay dataset): configs of the product absent from entries
    // failed or broke a restriction there, so they teach validity too.
    bool absentAreInvalid = false;
    // The configs' hardware features on the source's GPU and that GPU's own (by the source's product index),
    // for a hardware-aware prior; null when the source has no static profile.
    std::shared_ptr<const ConfigFeatureTable> hardware = nullptr;
    std::int64_t session = 0; // the records' session it comes from (0: a dataset)
};

} // namespace ts
