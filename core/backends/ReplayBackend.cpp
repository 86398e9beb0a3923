#include "backends/ReplayBackend.h"

#include "util/Error.h"

#include <chrono>
#include <fmt/format.h>
#include <thread>

namespace ts {

ReplayBackend::ReplayBackend(std::shared_ptr<const Dataset> dataset, bool stochastic, std::uint64_t seed,
                             std::shared_ptr<const DatasetProfile> profile)
    : m_dataset(std::move(dataset)), m_profile(std::move(profile)), m_stochastic(stochastic), m_rng(seed) {
    if (!m_dataset) {
        throw Error("The replay backend needs a dataset, but none was given.");
    }
}

void ReplayBackend::setDelay(double ms) {
    if (!(ms >= 0 && ms <= 60000))
        throw Error(fmt::format("The replay delay {} ms is not a time from 0 to 60000 ms.", ms));
    m_delayMs = ms;
}

std::string ReplayBackend::name() const {
    return "replay";
}

std::string ReplayBackend::deviceFingerprint() const {
    if (!m_dataset->deviceName.empty()) {
        return m_dataset->deviceName;
    }
    return "replay:" + m_dataset->path.filename().string();
}

DeviceFingerprint ReplayBackend::deviceDetails() const {
    return DeviceFingerprint::ofGpuName(deviceFingerprint());
}

std::vector<Measurement> ReplayBackend::measure(std::span<const Config> batch) {
    std::vector<Measurement> results;
    results.reserve(batch.size());
    for (const Config& config : batch) {
        results.push_back(lookup(config));
        if (m_delayMs > 0 && results.back().status != MeasureStatus::Invalid)
            std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(m_delayMs));
    }
    return results;
}

Measurement ReplayBackend::lookup(const Config& config) {
    const SearchSpace& space = m_dataset->space;
    std::optional<SearchSpace::Index> index;
    if (config.size() == space.dimension()) {
        index = space.indexOf(config);
    }
    const auto entry = index ? m_dataset->entries.find(*index) : m_dataset->entries.end();
    if (entry == m_dataset->entries.end()) {
        Measurement absent;
        absent.status = MeasureStatus::Invalid;
        absent.log = kAbsentLog;
        return absent;
    }
    Measurement result = entry->second;
    if (m_stochastic && result.status == MeasureStatus::Ok && !result.samples.empty()) {
        std::uniform_int_distribution<std::size_t> pick(0, result.samples.size() - 1);
        result.objective = result.samples[pick(m_rng)];
    }
    if (m_profile) {
        const auto profiled = m_profile->configs.find(space.key(*index));
        if (profiled != m_profile->configs.end())
            for (const auto& [name, value] : DatasetProfile::metrics(profiled->second))
                result.metrics.insert_or_assign(name, value);
    }
    return result;
}

} // namespace ts
