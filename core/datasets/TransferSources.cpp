#include "datasets/TransferSources.h"

#include "datasets/ProfileFeatures.h"

namespace ts {

PriorSource priorSource(const Dataset& dataset, bool hardware) {
    PriorSource source;
    source.label = dataset.path.filename().string();
    source.space = &dataset.space;
    source.entries.assign(dataset.entries.begin(), dataset.entries.end());
    source.absentAreInvalid = true;
    if (hardware)
        source.hardware = transferFeatures(dataset);
    return source;
}

std::shared_ptr<const TransferPrior>
leaveOneOutPrior(const std::vector<std::shared_ptr<const Dataset>>& datasets, std::size_t target, int threads,
                 bool hardware) {
    const Dataset& goal = *datasets[target];
    std::vector<PriorSource> sources;
    for (std::size_t d = 0; d < datasets.size(); ++d)
        if (d != target && datasets[d]->kernelName == goal.kernelName && datasets[d]->path != goal.path &&
            TransferPrior::compatible(goal.space, datasets[d]->space))
            sources.push_back(priorSource(*datasets[d], hardware));
    if (sources.empty())
        return nullptr;
    XgbSettings settings;
    settings.threads = threads;
    return std::make_shared<const TransferPrior>(goal.space, sources, settings,
                                                 hardware ? transferFeatures(goal) : nullptr);
}

} // namespace ts
