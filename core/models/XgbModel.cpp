#include "models/XgbModel.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace ts {

namespace {

struct Split {
    std::vector<float> rows, labels;
};

Split gather(std::span<const float> rows, std::size_t width, std::span<const float> labels,
             std::span<const std::size_t> order) {
    Split s;
    for (std::size_t r : order) {
        s.rows.insert(s.rows.end(), rows.begin() + r * width, rows.begin() + (r + 1) * width);
        s.labels.push_back(labels[r]);
    }
    return s;
}

} // namespace

void XgbModel::train(std::span<const float> rows, std::size_t width, std::span<const float> labels) {
    const std::size_t n = labels.size();
    if (n < 2)
        return;
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::size_t holdOut = 0;
    if (static_cast<int>(n) >= m_settings.minRowsForHoldOut) {
        std::mt19937_64 rng(m_settings.seed + n);
        std::shuffle(order.begin(), order.end(), rng);
        holdOut = std::max<std::size_t>(1, static_cast<std::size_t>(m_settings.holdOutFraction * double(n)));
    }
    Split training = gather(rows, width, labels, std::span(order).subspan(holdOut));
    XgbMatrix trainMatrix(training.rows, training.labels.size(), width, m_settings.threads);
    trainMatrix.setLabels(training.labels);
    std::unique_ptr<XgbMatrix> validation;
    if (holdOut > 0) {
        Split held = gather(rows, width, labels, std::span(order).first(holdOut));
        validation = std::make_unique<XgbMatrix>(held.rows, held.labels.size(), width, m_settings.threads);
        validation->setLabels(held.labels);
    }

    XgbBooster booster(&trainMatrix);
    booster.setParameters(m_settings.parameters());
    int bestRound = m_settings.rounds - 1;
    double bestLoss = 0.0;
    for (int round = 0; round < m_settings.rounds; ++round) {
        booster.updateOneIteration(round, trainMatrix);
        if (!validation)
            continue;
        double loss = booster.evaluate(round, *validation);
        if (round == 0 || loss < bestLoss) {
            bestLoss = loss;
            bestRound = round;
        } else if (round - bestRound >= m_settings.earlyStoppingRounds) {
            break;
        }
    }
    // A copy, not the booster itself: the copy has no cache on the training matrix, and a slice, unlike a
    // model loaded from bytes, needs no parallel region (whose idle OpenMP threads would spin beside us).
    std::shared_ptr<XgbBooster> copy = booster.first(bestRound + 1);
    copy->setParameters({{"nthread", std::to_string(m_settings.threads)}});
    std::lock_guard lock(m_mutex);
    m_rounds = copy->boostedRounds();
    m_published = std::move(copy);
}

bool XgbModel::isTrained() const {
    return published() != nullptr;
}

std::shared_ptr<const XgbBooster> XgbModel::published() const {
    std::lock_guard lock(m_mutex);
    return m_published;
}

std::vector<float> XgbModel::predict(const XgbMatrix& data) const {
    auto booster = published();
    int rounds;
    {
        std::lock_guard lock(m_mutex);
        rounds = m_rounds;
    }
    return booster->predict(data, rounds);
}

std::vector<float> XgbModel::predict(std::span<const float> rows, std::size_t width) const {
    XgbMatrix data(rows, rows.size() / width, width, m_settings.threads);
    return predict(data);
}

std::vector<char> XgbModel::save() const {
    auto booster = published();
    return booster ? booster->save() : std::vector<char>{};
}

void XgbModel::load(const std::vector<char>& bytes) {
    auto copy = std::make_shared<XgbBooster>();
    copy->load(bytes);
    copy->setParameters({{"nthread", std::to_string(m_settings.threads)}});
    std::lock_guard lock(m_mutex);
    m_rounds = copy->boostedRounds();
    m_published = std::move(copy);
}

} // namespace ts
