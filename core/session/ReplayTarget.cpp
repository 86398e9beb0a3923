#include "session/ReplayTarget.h"

#include "datasets/DatasetReader.h"
#include "datasets/DatasetRestriction.h"
#include "datasets/ProfileFeatures.h"

#include <filesystem>

namespace ts {

ReplayTarget::ReplayTarget(const SessionPlan& plan, std::shared_ptr<const Dataset> loaded,
                           std::optional<std::shared_ptr<const DatasetProfile>> loadedProfile) {
    if (!loaded || std::filesystem::absolute(loaded->path) != std::filesystem::absolute(plan.dataset)) {
        loaded = std::make_shared<const Dataset>(readDataset(plan.dataset));
        loadedProfile.reset();
    }
    m_dataset = plan.constraints.empty()
                    ? loaded
                    : std::make_shared<const Dataset>(restrictDataset(*loaded, plan.constraints));
    m_profile = loadedProfile ? *loadedProfile : DatasetProfile::companionOf(*loaded);
    m_backend = std::make_unique<ReplayBackend>(m_dataset, plan.stochastic, plan.seed, m_profile);
    m_backend->setDelay(plan.replayDelayMs);
}

std::shared_ptr<const ConfigFeatureTable> ReplayTarget::staticFeatures(SpaceMode mode) const {
    return requireProfileFeatures(*m_dataset, m_profile.get(), mode);
}

std::shared_ptr<const ConfigFeatureTable> ReplayTarget::transferFeatures() const {
    return m_profile ? profileFeatures(*m_dataset, *m_profile, true) : nullptr;
}

} // namespace ts
