#include "models/XgbCostModel.h"

#include <cmath>

namespace ts {

XgbCostModel::XgbCostModel(const SearchSpace& space, XgbSettings settings)
    : m_space(&space), m_encoder(space), m_model(std::move(settings)) {}

void XgbCostModel::update(std::span<const Trial> trials) {
    update(trials, std::vector<double>(trials.size(), 0.0));
}

void XgbCostModel::update(std::span<const Trial> trials, std::span<const double> offsets) {
    std::vector<SearchSpace::Index> indices;
    std::vector<float> labels;
    for (std::size_t i = 0; i < trials.size(); ++i)
        if (const Trial& trial = trials[i];
            trial.measurement.status == MeasureStatus::Ok && trial.measurement.objective > 0.0) {
            indices.push_back(trial.index);
            double logTime = std::log(trial.measurement.objective) - offsets[i];
            labels.push_back(static_cast<float>(isRanking() ? -logTime : logTime));
        }
    if (labels.size() < 2)
        return;
    m_model.train(m_encoder.encode(*m_space, indices), m_encoder.width(), labels);
}

std::vector<double> XgbCostModel::predictLog(const XgbMatrix& features) const {
    std::vector<float> raw = m_model.predict(features);
    std::vector<double> result(raw.begin(), raw.end());
    if (isRanking())
        for (double& value : result)
            value = -value;
    return result;
}

std::vector<double> XgbCostModel::predict(std::span<const SearchSpace::Index> configs) const {
    std::vector<float> rows = m_encoder.encode(*m_space, configs);
    XgbMatrix features(rows, configs.size(), m_encoder.width());
    std::vector<double> result = predictLog(features);
    if (!isRanking())
        for (double& value : result)
            value = std::exp(value);
    return result;
}

} // namespace ts
