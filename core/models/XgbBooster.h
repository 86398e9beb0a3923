#pragma once

#include "models/XgbMatrix.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ts {

// RAII owner of an XGBoost booster. Not thread-safe: train and predict on one booster from one thread at a
// time; give other threads a copy (first(), or save() and load()).
class XgbBooster {
public:
    // A booster with its cache on the training matrix (may be null for a booster that is only loaded).
    explicit XgbBooster(const XgbMatrix* training = nullptr);
    ~XgbBooster();
    XgbBooster(const XgbBooster&) = delete;
    XgbBooster& operator=(const XgbBooster&) = delete;

    void setParameters(const std::map<std::string, std::string>& parameters);
    void updateOneIteration(int iteration, const XgbMatrix& training);
    // The value of the first metric on `data` after `iteration` (parsed from XGBoost's evaluation line).
    double evaluate(int iteration, const XgbMatrix& data);
    // Predictions (transformed: probabilities for logistic objectives) for every row of data, using the
    // first `rounds` boosting rounds (0 = all).
    std::vector<float> predict(const XgbMatrix& data, int rounds = 0) const;
    int boostedRounds() const;

    // The model as UBJSON bytes, and back; predictions of a loaded copy equal the original's.
    std::vector<char> save() const;
    // A copy of the first `rounds` boosting rounds (all of them: a whole copy), with no cache on a
    // training matrix; its predictions from those rounds equal the original's.
    std::unique_ptr<XgbBooster> first(int rounds) const;
    void load(const std::vector<char>& bytes);

private:
    void* m_handle = nullptr;
};

} // namespace ts
