#include "models/XgbValidityModel.h"

namespace ts {

namespace {

XgbSettings classifierSettings(XgbSettings settings) {
    settings.objective = "binary:logistic";
    return settings;
}

} // namespace

XgbValidityModel::XgbValidityModel(const SearchSpace& space, XgbSettings settings)
    : m_space(&space), m_encoder(space), m_model(classifierSettings(std::move(settings))) {}

void XgbValidityModel::update(std::span<const Trial> trials) {
    std::vector<SearchSpace::Index> indices;
    std::vector<float> labels;
    std::size_t ok = 0;
    for (const Trial& trial : trials) {
        indices.push_back(trial.index);
        bool valid = trial.measurement.status == MeasureStatus::Ok;
        ok += valid;
        labels.push_back(valid ? 1.0f : 0.0f);
    }
    if (labels.empty())
        return;
    m_observations = labels.size();
    m_rate = double(ok) / double(labels.size());
    m_constant = ok == 0 || ok == labels.size();
    if (!m_constant)
        m_model.train(m_encoder.encode(*m_space, indices), m_encoder.width(), labels);
}

std::vector<double> XgbValidityModel::predict(const XgbMatrix& features) const {
    if (m_constant)
        return std::vector<double>(features.rows(), m_rate);
    std::vector<float> p = m_model.predict(features);
    return std::vector<double>(p.begin(), p.end());
}

std::vector<double> XgbValidityModel::predict(std::span<const SearchSpace::Index> configs) const {
    std::vector<float> rows = m_encoder.encode(*m_space, configs);
    return predict(XgbMatrix(rows, configs.size(), m_encoder.width()));
}

} // namespace ts
