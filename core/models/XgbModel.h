#pragma once

#include "models/XgbBooster.h"
#include "models/XgbSettings.h"

#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace ts {

// One XGBoost model trained from scratch on every train() call. Training runs on a private booster; the
// result is published as a read-only copy (through a save/load buffer) that predict() uses, so predictions
// from other threads never meet a booster that is being trained.
class XgbModel {
public:
    explicit XgbModel(XgbSettings settings = {}) : m_settings(std::move(settings)) {}

    // Holds out a slice for early stopping when there are enough rows; fewer than 2 rows leave the model
    // as it was.
    void train(std::span<const float> rows, std::size_t width, std::span<const float> labels);
    bool isTrained() const;
    int rounds() const { return m_rounds; }
    const XgbSettings& settings() const { return m_settings; }

    // Transformed outputs (probabilities for binary:logistic) for every row of data.
    std::vector<float> predict(const XgbMatrix& data) const;
    std::vector<float> predict(std::span<const float> rows, std::size_t width) const;

    std::vector<char> save() const;
    void load(const std::vector<char>& bytes);

private:
    std::shared_ptr<const XgbBooster> published() const;

    XgbSettings m_settings;
    int m_rounds = 0;
    mutable std::mutex m_mutex;
    std::shared_ptr<const XgbBooster> m_published;
};

} // namespace ts
