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
    std::vector<std::shared_ptr<const Dataset>> others;
    for (std::size_t d = 0; d < datasets.size(); ++d)
        if (d != target && datasets[d]->kernelName == goal.kernelName && datasets[d]->path != goal.path)
            others.push_back(datasets[d]);
    return namedPrior(goal, others, threads, hardware);
}

std::shared_ptr<const TransferPrior> namedPrior(const Dataset& target,
                                                const std::vector<std::shared_ptr<const Dataset>>& sources,
                                                int threads, bool hardware) {
    std::vector<PriorSource> compatible;
    for (const auto& source : sources)
        if (TransferPrior::compatible(target.space, source->space))
            compatible.push_back(priorSource(*source, hardware));
    if (compatible.empty())
        return nullptr;
    XgbSettings settings;
    settings.threads = threads;
    return std::make_shared<const TransferPrior>(target.space, compatible, settings,
                                                 hardware ? transferFeatures(target) : nullptr);
}

} // namespace ts
