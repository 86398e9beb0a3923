#pragma once

#include "models/CostModel.h"
#include "models/CostModelFactory.h"
#include "models/EncodedConfigs.h"
#include "models/FeatureEncoder.h"
#include "models/XgbModel.h"

namespace ts {

// XGBoost cost model on generic features (FeatureEncoder). Trained on the Ok trials: with
// reg:squarederror it regresses log time and predicts milliseconds; with rank:pairwise it learns the order
// only and predict() returns -score (lower = predicted faster).
class XgbCostModel : public CostModel {
public:
    // The space must outlive the model. `encoded`, when given, holds configs already encoded (by the strategy
    // that owns the model) that predictions reuse; `extra`: feature columns beside the parameters'
    // (FeatureEncoder), the same as the encoded configs have.
    explicit XgbCostModel(const SearchSpace& space, XgbSettings settings = {},
                          std::shared_ptr<const EncodedConfigs> encoded = nullptr,
                          std::shared_ptr<const ConfigFeatureTable> extra = nullptr);

    // The model-guided strategies' default: models with `settings` and the request's seed; members of an
    // ensemble of several train on random 80 % of the rows and columns, so they disagree where the data is
    // thin. The models take the request's extra features.
    static CostModelFactory factory(XgbSettings settings,
                                    std::shared_ptr<const EncodedConfigs> encoded = nullptr);

    std::string name() const override { return "xgb"; }
    void update(std::span<const Trial> trials) override;
    void updateResidual(std::span<const Trial> trials, std::span<const double> logOffsets) override;
    bool isTrained() const override { return m_model.isTrained(); }
    std::vector<double> predict(std::span<const SearchSpace::Index> configs) const override;
    std::vector<double> predictLog(std::span<const SearchSpace::Index> configs) const override;
    std::vector<char> save() const override { return m_model.save(); }
    void load(const std::vector<char>& bytes) override { m_model.load(bytes); }

    bool isRanking() const { return m_model.settings().objective.rfind("rank:", 0) == 0; }

private:
    const SearchSpace* m_space;
    FeatureEncoder m_encoder;
    XgbModel m_model;
    std::shared_ptr<const EncodedConfigs> m_encoded;
};

} // namespace ts
