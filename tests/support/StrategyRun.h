#pragma once

#include "SyntheticDataset.h"
#include "backends/ReplayBackend.h"
#include "session/TuningSession.h"
#include "strategies/Strategy.h"

#include <QtTest>
#include <cmath>
#include <memory>
#include <set>

Q_DECLARE_METATYPE(ts::SpaceMode)

namespace ts::test {

// Forwards to a strategy and keeps every index it proposed, across all calls.
class RecordingStrategy : public Strategy {
public:
    explicit RecordingStrategy(std::unique_ptr<Strategy> inner) : m_inner(std::move(inner)) {}
    std::string name() const override { return m_inner->name(); }
    void reset(const StrategyContext& context) override { m_inner->reset(context); }
    std::vector<SearchSpace::Index> propose(std::size_t maxCount) override {
        auto batch = m_inner->propose(maxCount);
        if (batch.size() > maxCount)
            tooLarge = true;
        proposed.insert(proposed.end(), batch.begin(), batch.end());
        return batch;
    }
    void observe(std::span<const Trial> trials) override { m_inner->observe(trials); }
    bool usesPrior() const override { return m_inner->usesPrior(); }
    std::vector<std::string> learnedRestrictions() const override { return m_inner->learnedRestrictions(); }
    std::optional<double> prediction(SearchSpace::Index index) const override {
        return m_inner->prediction(index);
    }

    std::vector<SearchSpace::Index> proposed;
    bool tooLarge = false;

private:
    std::unique_ptr<Strategy> m_inner;
};

struct RunOutcome {
    std::vector<SearchSpace::Index> proposed;
    std::vector<Trial> trials;
    StopReason reason = StopReason::None;
    bool tooLarge = false;
};

// One replayed session of `strategy` (reset with `context`) on the dataset.
inline RunOutcome runStrategy(std::unique_ptr<Strategy> strategy, const StrategyContext& context,
                              const std::shared_ptr<const Dataset>& dataset, std::int64_t budget,
                              std::size_t batchSize) {
    RecordingStrategy recording(std::move(strategy));
    recording.reset(context);
    ReplayBackend backend(dataset);
    SessionSettings settings;
    settings.mode = context.mode;
    settings.batchSize = batchSize;
    settings.stop.maxEvaluations = budget;
    TuningSession session(dataset->space, backend, recording, settings);
    RunOutcome outcome;
    outcome.reason = session.run();
    outcome.proposed = recording.proposed;
    outcome.trials = session.trials();
    outcome.tooLarge = recording.tooLarge;
    return outcome;
}

inline bool unique(const std::vector<SearchSpace::Index>& indices) {
    return std::set<SearchSpace::Index>(indices.begin(), indices.end()).size() == indices.size();
}

// The synthetic dataset with every config failed except those whose index is 3 mod 10 (and the optimum).
inline std::shared_ptr<Dataset> mostlyInvalidDataset(SearchSpace::Index optimum) {
    auto dataset = syntheticDataset(0);
    for (auto& [index, measurement] : dataset->entries)
        if (index % 10 != 3 && index != optimum)
            measurement.status = MeasureStatus::RuntimeFailed;
    return dataset;
}

inline double fractionOfOptimum(const std::vector<Trial>& trials, double optimum) {
    double best = INFINITY;
    for (const Trial& trial : trials)
        if (trial.measurement.status == MeasureStatus::Ok)
            best = std::min(best, trial.measurement.objective);
    return std::isfinite(best) ? optimum / best : 0.0;
}

// Qt Test data rows for both space modes.
inline void addModes() {
    QTest::addColumn<SpaceMode>("mode");
    QTest::newRow("constrained") << SpaceMode::Constrained;
    QTest::newRow("product") << SpaceMode::Product;
}

} // namespace ts::test
