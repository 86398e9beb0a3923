#include "hardware/StaticCostModel.h"

#include "util/BoundedJson.h"
#include "util/Error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace ts {

StaticCostModel::StaticCostModel(GpuSpec gpu, std::optional<double> flops, std::optional<double> bytes,
                                 double peakFlops, ProfileSource source)
    : m_gpu(std::move(gpu)), m_flops(flops), m_bytes(bytes), m_peakFlops(peakFlops),
      m_source(std::move(source)) {}

double StaticCostModel::rooflineMs() const {
    double seconds = 0.0;
    if (m_flops && m_peakFlops > 0)
        seconds = std::max(seconds, *m_flops / m_peakFlops);
    if (m_bytes && m_gpu.memoryBandwidthGBs > 0)
        seconds = std::max(seconds, *m_bytes / (m_gpu.memoryBandwidthGBs * 1e9));
    return seconds > 0 ? seconds * 1e3 : 1.0;
}

double StaticCostModel::estimateMs(const StaticProfile& p) const {
    if (!p.fits())
        return kUnfitMs;
    const Efficiency e = efficiency(p);
    return rooflineMs() / std::max(e.hiding * e.fill * e.tail * e.spill, 1e-6);
}

StaticCostModel::Efficiency StaticCostModel::efficiency(const StaticProfile& p) const {
    const Occupancy& o = p.occupancy;
    // Latency hiding: assumed to saturate at half occupancy, falling off as the square root below it.
    const double hiding = std::sqrt(std::min(1.0, o.occupancy / 0.5));
    const double sms = std::max(m_gpu.smCount, 1);
    const double blocks = double(std::max<std::int64_t>(p.launch.blocks(), 1));
    const double fill = std::min(1.0, blocks / sms);
    const double waves = blocks / (sms * o.activeBlocksPerSm);
    const double tail = waves >= 1.0 ? waves / std::ceil(waves) : 1.0;
    const double spilled = double(p.resources.spillStoreBytes + p.resources.spillLoadBytes);
    const double spill = 1.0 / (1.0 + spilled / 256.0);
    return {hiding, fill, tail, spill};
}

void StaticCostModel::update(std::span<const Trial> trials) {
    std::vector<SearchSpace::Index> indices;
    std::vector<double> measured;
    for (const Trial& t : trials)
        if (t.measurement.status == MeasureStatus::Ok && t.measurement.objective > 0) {
            indices.push_back(t.index);
            measured.push_back(t.measurement.objective);
        }
    if (indices.empty())
        return;
    const std::vector<StaticProfile> profiles = m_source(indices);
    std::vector<double> ratios;
    for (std::size_t i = 0; i < profiles.size(); ++i) {
        const double estimate = estimateMs(profiles[i]);
        if (estimate < kUnfitMs)
            ratios.push_back(measured[i] / estimate);
    }
    if (ratios.empty())
        return;
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    m_scale = ratios[ratios.size() / 2];
}

std::vector<double> StaticCostModel::predict(std::span<const SearchSpace::Index> configs) const {
    const std::vector<StaticProfile> profiles = m_source(configs);
    std::vector<double> out;
    out.reserve(profiles.size());
    for (const StaticProfile& p : profiles) {
        const double estimate = estimateMs(p);
        out.push_back(estimate >= kUnfitMs ? kUnfitMs : estimate * m_scale);
    }
    return out;
}

std::vector<char> StaticCostModel::save() const {
    const std::string text = nlohmann::json{{"model", "static"}, {"scale", m_scale}}.dump();
    return {text.begin(), text.end()};
}

void StaticCostModel::load(const std::vector<char>& bytes) {
    const nlohmann::json doc =
        parseBoundedJson(std::string_view(bytes.data(), bytes.size()), "The saved model");
    if (doc.is_discarded() || doc.value("model", std::string()) != "static" || !doc.contains("scale") ||
        !doc.at("scale").is_number() || !(doc.at("scale").get<double>() > 0))
        throw Error("The saved model is not a static cost model.");
    m_scale = doc.at("scale").get<double>();
}

} // namespace ts
