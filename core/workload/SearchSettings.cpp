#include "workload/SearchSettings.h"

#include "session/SessionPlan.h"

namespace ts {

SearchSettings SearchSettings::of(const SessionPlan& plan) {
    return {.strategy = plan.strategy,
            .options = plan.options,
            .mode = plan.mode,
            .batchSize = plan.batchSize,
            .constraints = plan.constraints,
            .cold = plan.cold,
            .transfer = plan.transfer,
            .stochastic = plan.stochastic};
}

void SearchSettings::applyTo(SessionPlan& plan) const {
    if (strategy) {
        plan.strategy = *strategy;
        plan.options = options;
    } else {
        for (const auto& [name, value] : options)
            plan.options[name] = value;
    }
    if (mode)
        plan.mode = *mode;
    if (batchSize)
        plan.batchSize = *batchSize;
    plan.constraints.insert(plan.constraints.end(), constraints.begin(), constraints.end());
    if (cold)
        plan.cold = *cold;
    if (transfer)
        plan.transfer = *transfer;
    if (stochastic)
        plan.stochastic = *stochastic;
}

} // namespace ts
