#pragma once

#include "backends/ReplayBackend.h"
#include "datasets/Dataset.h"
#include "datasets/DatasetProfile.h"
#include "models/ConfigFeatureTable.h"
#include "session/SessionPlan.h"

#include <memory>
#include <optional>

namespace ts {

// The target of a replay plan: its dataset, narrowed by the plan's constraints, and the backend replaying it
// (stochastic or not, with the plan's seed and delay, and the dataset's static profile when it has one).
// Built by PreparedSession and by a measuring rank of an MPI job from the same plan. Throws Error naming the
// dataset when it cannot be read or a constraint does not apply.
class ReplayTarget {
public:
    // `loaded`: the plan's dataset when the caller has read it already (same path), else null; with it,
    // `loadedProfile` when the caller has read its static profile too (null: it has none).
    explicit ReplayTarget(const SessionPlan& plan, std::shared_ptr<const Dataset> loaded = nullptr,
                          std::optional<std::shared_ptr<const DatasetProfile>> loadedProfile = std::nullopt);

    const std::shared_ptr<const Dataset>& dataset() const { return m_dataset; }
    ReplayBackend& backend() { return *m_backend; }

    // The hardware features of the dataset's configs from its static profile, for strategies with option
    // `hardware`. Throws Error naming the dataset when it has no profile, or one that does not cover every
    // config a search in `mode` may propose (a product-mode search needs `analyze --dataset --product`).
    std::shared_ptr<const ConfigFeatureTable> staticFeatures(SpaceMode mode) const;
    // The profile's features with the GPU's own, for a hardware-aware transfer prior; null without a profile.
    std::shared_ptr<const ConfigFeatureTable> transferFeatures() const;

private:
    std::shared_ptr<const Dataset> m_dataset;
    std::shared_ptr<const DatasetProfile> m_profile;
    std::unique_ptr<ReplayBackend> m_backend;
};

} // namespace ts
