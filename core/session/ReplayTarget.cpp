#include "session/ReplayTarget.h"

#include "records/DatasetReader.h"
#include "records/DatasetRestriction.h"
#include "records/ProfileFeatures.h"

#include <filesystem>

namespace ts {

ReplayTarget::ReplayTarget(const SessionPlan& plan, std::shared_ptr<const Dataset> loaded) {
    if (!loaded || std::filesystem::absolute(loaded->path) != std::filesystem::absolute(plan.dataset))
        loaded = std::make_shared<const Dataset>(readDataset(plan.dataset));
    m_dataset = plan.constraints.empty()
                    ? loaded
                    : std::make_shared<const Dataset>(restrictDataset(*loaded, plan.constraints));
    m_profile = DatasetProfile::companionOf(*loaded);
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
