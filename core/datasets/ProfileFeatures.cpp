#include "datasets/ProfileFeatures.h"

#include "hardware/GpuDatabase.h"
#include "hardware/HardwareFeatures.h"
#include "hardware/OccupancyCalculator.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ts {

StaticProfile staticProfileOf(const ConfigProfile& c, const OccupancyCalculator& calculator) {
    StaticProfile p;
    p.compiled = c.compiled;
    p.launch.block = {std::max<std::int64_t>(c.threadsPerBlock, 1), 1, 1};
    p.launch.grid = {std::max<std::int64_t>(c.blocks, 1), 1, 1};
    p.launch.dynamicSharedBytes = c.dynamicSharedBytes;
    if (!c.compiled)
        return p;
    p.resources.registersPerThread = c.registers;
    p.resources.spillStoreBytes = c.spillStores;
    p.resources.spillLoadBytes = c.spillLoads;
    p.resources.staticSharedBytes = c.staticSharedBytes;
    p.occupancy =
        calculator.compute(p.resources, static_cast<int>(p.launch.threadsPerBlock()), c.dynamicSharedBytes);
    return p;
}

const std::vector<std::string>& deviceFeatureNames() {
    static const std::vector<std::string> kNames{"gpu_sms_log2",
                                                 "gpu_threads_per_sm_log2",
                                                 "gpu_blocks_per_sm_log2",
                                                 "gpu_shared_per_sm_log2",
                                                 "gpu_bandwidth_log2",
                                                 "gpu_fp32_log2",
                                                 "gpu_l2_log2",
                                                 "gpu_clock_log2"};
    return kNames;
}

namespace {

std::vector<float> deviceFeatures(const GpuSpec& gpu) {
    auto log2of = [](double value) { return static_cast<float>(std::log2(std::max(value, 1e-9))); };
    return {log2of(gpu.smCount),
            log2of(gpu.maxThreadsPerSm),
            log2of(gpu.maxBlocksPerSm),
            log2of(double(gpu.sharedPerSm)),
            log2of(gpu.memoryBandwidthGBs),
            log2of(gpu.fp32TFlops),
            log2of(double(gpu.l2Bytes)),
            log2of(gpu.boostClockMHz)};
}

} // namespace

std::shared_ptr<const ConfigFeatureTable> transferFeatures(const Dataset& dataset) {
    const auto profile = DatasetProfile::companionOf(dataset);
    return profile ? profileFeatures(dataset, *profile, true) : nullptr;
}

std::shared_ptr<const ConfigFeatureTable> profileFeatures(const Dataset& dataset,
                                                          const DatasetProfile& profile, bool withDevice) {
    if (!OccupancyCalculator::available())
        return nullptr;
    const GpuSpec* gpu = GpuDatabase::builtin().find(profile.gpu);
    if (!gpu)
        throw Error(fmt::format("The static profile of {} was made for the GPU {}, which is not in the GPU "
                                "database, so its configs' hardware features cannot be computed.",
                                dataset.path.filename().string(), profile.gpu));
    const HardwareFeatures features(*gpu);
    const OccupancyCalculator calculator(*gpu);
    const std::vector<std::string>& names = HardwareFeatures::names();
    std::vector<std::size_t> gridColumns;
    for (const char* name : {"sm_fill", "waves_log2", "tail_efficiency"})
        gridColumns.push_back(std::find(names.begin(), names.end(), name) - names.begin());
    std::vector<std::string> columns = names;
    const std::vector<float> device = withDevice ? deviceFeatures(*gpu) : std::vector<float>{};
    if (withDevice)
        columns.insert(columns.end(), deviceFeatureNames().begin(), deviceFeatureNames().end());
    auto table = std::make_shared<ConfigFeatureTable>(columns);
    std::vector<float> row(columns.size());
    for (const auto& [key, config] : profile.configs) {
        const std::optional<SearchSpace::Index> index = dataset.space.indexOfKey(key);
        if (!index)
            continue; // DatasetProfile::read has refused such rows
        features.encode(staticProfileOf(config, calculator), std::span<float>(row).first(names.size()));
        std::copy(device.begin(), device.end(), row.begin() + std::ptrdiff_t(names.size()));
        if (config.blocks <= 0)
            for (std::size_t column : gridColumns)
                row[column] = std::nanf("");
        table->set(*index, row);
    }
    return table;
}

std::shared_ptr<const ConfigFeatureTable>
requireProfileFeatures(const Dataset& dataset, const DatasetProfile* profile, SpaceMode mode) {
    const std::string name = dataset.path.filename().string();
    if (!profile)
        throw Error(
            fmt::format("Option hardware=true needs the static profile of {}, which has none: make it "
                        "with tunescope-cli analyze --dataset {} --kernel-spec K --product.",
                        name, dataset.path.string()));
    auto features = profileFeatures(dataset, *profile);
    if (!features)
        throw Error("Option hardware=true needs the CUDA toolkit's occupancy header, which this build of "
                    "Tunescope was made without.");
    if (!features->covers(dataset.space, mode))
        throw Error(
            fmt::format("Option hardware=true needs a static profile of every config a {} search of {} "
                        "may propose, but its profile holds {} configs: remake it with tunescope-cli "
                        "analyze --dataset {} --kernel-spec K --product.",
                        toString(mode), name, features->rows(), dataset.path.string()));
    return features;
}

} // namespace ts
