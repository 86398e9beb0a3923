#include "models/XgbValidityModel.h"

namespace ts {

namespace {

XgbSettings classifierSettings(XgbSettings settings) {
    settings.objective = "binary:logistic";
    return settings;
}

} // namespace

XgbValidityModel::XgbValidityModel(const SearchSpace& space, XgbSettings settings, bool restrictions,
                                   std::shared_ptr<const ConfigFeatureTable> extra)
    : m_space(&space), m_encoder(space, std::move(extra)), m_model(classifierSettings(std::move(settings))),
      m_useRestrictions(restrictions) {
    if (restrictions)
        m_restrictions = LearnedRestrictions(space);
}

void XgbValidityModel::update(std::span<const Trial> trials) {
    if (trials.empty())
        return;
    m_observations = trials.size();
    // The learned restrictions explain the failures they cover; the classifier learns what they leave.
    std::vector<double> byRules(trials.size(), 1.0);
    if (m_useRestrictions) {
        m_restrictions.update(trials);
        std::vector<SearchSpace::Index> all;
        for (const Trial& trial : trials)
            all.push_back(trial.index);
        byRules = m_restrictions.predict(all);
    }
    std::vector<SearchSpace::Index> indices;
    std::vector<float> labels;
    std::size_t ok = 0;
    for (std::size_t i = 0; i < trials.size(); ++i) {
        if (byRules[i] < 1.0)
            continue;
        indices.push_back(trials[i].index);
        bool valid = trials[i].measurement.status == MeasureStatus::Ok;
        ok += valid;
        labels.push_back(valid ? 1.0f : 0.0f);
    }
    m_rate = labels.empty() ? 1.0 : double(ok) / double(labels.size());
    m_constant = ok == 0 || ok == labels.size();
    if (!m_constant)
        m_model.train(m_encoder.encode(*m_space, indices), m_encoder.width(), labels);
}

std::vector<double> XgbValidityModel::predict(const XgbMatrix& features,
                                              std::span<const SearchSpace::Index> configs) const {
    std::vector<double> p(features.rows(), m_rate);
    if (!m_constant) {
        std::vector<float> model = m_model.predict(features);
        p.assign(model.begin(), model.end());
    }
    if (m_useRestrictions && !m_restrictions.learned().empty()) {
        std::vector<double> rules = m_restrictions.predict(configs);
        for (std::size_t i = 0; i < p.size(); ++i)
            p[i] *= rules[i];
    }
    return p;
}

std::vector<double> XgbValidityModel::predict(std::span<const SearchSpace::Index> configs) const {
    std::vector<float> rows = m_encoder.encode(*m_space, configs);
    return predict(XgbMatrix(rows, configs.size(), m_encoder.width()), configs);
}

} // namespace ts
