#include "session/ReplayTarget.h"

#include "records/DatasetReader.h"
#include "records/DatasetRestriction.h"

#include <filesystem>

namespace ts {

ReplayTarget::ReplayTarget(const SessionPlan& plan, std::shared_ptr<const Dataset> loaded) {
    if (!loaded || std::filesystem::absolute(loaded->path) != std::filesystem::absolute(plan.dataset))
        loaded = std::make_shared<const Dataset>(readDataset(plan.dataset));
    m_dataset = plan.constraints.empty()
                    ? loaded
                    : std::make_shared<const Dataset>(restrictDataset(*loaded, plan.constraints));
    m_backend = std::make_unique<ReplayBackend>(m_dataset, plan.stochastic, plan.seed,
                                                DatasetProfile::companionOf(*loaded));
    m_backend->setDelay(plan.replayDelayMs);
}

} // namespace ts
