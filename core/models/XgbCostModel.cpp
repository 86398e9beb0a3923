#include "models/XgbCostModel.h"

#include <cmath>

namespace ts {

XgbCostModel::XgbCostModel(const SearchSpace& space, XgbSettings settings,
                           std::shared_ptr<const EncodedConfigs> encoded,
                           std::shared_ptr<const ConfigFeatureTable> extra)
    : m_space(&space), m_encoder(space, std::move(extra)), m_model(std::move(settings)),
      m_encoded(std::move(encoded)) {}

CostModelFactory XgbCostModel::factory(XgbSettings settings, std::shared_ptr<const EncodedConfigs> encoded) {
    return [settings, encoded](const CostModelRequest& request) {
        XgbSettings member = settings;
        member.seed = request.seed;
        if (request.members > 1) {
            member.subsample = 0.8;
            member.columnSample = 0.8;
        }
        return std::make_unique<XgbCostModel>(*request.space, member, encoded, request.features);
    };
}

void XgbCostModel::update(std::span<const Trial> trials) {
    updateResidual(trials, std::vector<double>(trials.size(), 0.0));
}

void XgbCostModel::updateResidual(std::span<const Trial> trials, std::span<const double> logOffsets) {
    std::vector<SearchSpace::Index> indices;
    std::vector<float> labels;
    for (std::size_t i = 0; i < trials.size(); ++i)
        if (const Trial& trial = trials[i];
            trial.measurement.status == MeasureStatus::Ok && trial.measurement.objective > 0.0) {
            indices.push_back(trial.index);
            double logTime = std::log(trial.measurement.objective) - logOffsets[i];
            labels.push_back(static_cast<float>(isRanking() ? -logTime : logTime));
        }
    if (labels.size() < 2)
        return;
    m_model.train(m_encoder.encode(*m_space, indices), m_encoder.width(), labels);
}

std::vector<double> XgbCostModel::predictLog(std::span<const SearchSpace::Index> configs) const {
    if (configs.empty())
        return {};
    std::vector<float> raw;
    if (auto features = m_encoded ? m_encoded->find(configs) : nullptr)
        raw = m_model.predict(*features);
    else
        raw = m_model.predict(m_encoder.encode(*m_space, configs), m_encoder.width());
    std::vector<double> result(raw.begin(), raw.end());
    if (isRanking())
        for (double& value : result)
            value = -value;
    return result;
}

std::vector<double> XgbCostModel::predict(std::span<const SearchSpace::Index> configs) const {
    std::vector<double> result = predictLog(configs);
    if (!isRanking())
        for (double& value : result)
            value = std::exp(value);
    return result;
}

} // namespace ts
