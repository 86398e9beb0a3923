#pragma once

#include "backends/Backend.h"
#include "datasets/Dataset.h"
#include "datasets/DatasetProfile.h"

#include <cstdint>
#include <memory>
#include <random>

namespace ts {

// Measures configs by looking them up in a dataset measured by someone else. Deterministic: the recorded
// mean, or in stochastic mode one recorded sample drawn with a generator seeded once at construction.
// With a static profile of the dataset (DatasetProfile), a config's profiled resources and occupancy are
// its measurement's metrics.
class ReplayBackend : public Backend {
public:
    explicit ReplayBackend(std::shared_ptr<const Dataset> dataset, bool stochastic = false,
                           std::uint64_t seed = 0, std::shared_ptr<const DatasetProfile> profile = nullptr);

    std::string name() const override;
    // The dataset's device name, or "replay:<file name>" when the file names no device.
    std::string deviceFingerprint() const override;
    // The dataset's GPU by name (its architecture when the name is a known GPU).
    DeviceFingerprint deviceDetails() const override;
    std::vector<Measurement> measure(std::span<const Config> batch) override;

    // Every config that is not Invalid then takes this many ms of wall time to measure, slept (0: none), so
    // that a replayed session spends its time measuring as a real one does. Throws Error outside 0..60000.
    void setDelay(double ms);

    const Dataset& dataset() const { return *m_dataset; }
    // Null when the dataset has no profile.
    const DatasetProfile* profile() const { return m_profile.get(); }

    static constexpr const char* kAbsentLog =
        "not in the dataset (did not satisfy the restrictions or was never measured)";

private:
    Measurement lookup(const Config& config);

    std::shared_ptr<const Dataset> m_dataset;
    std::shared_ptr<const DatasetProfile> m_profile;
    bool m_stochastic = false;
    double m_delayMs = 0.0;
    std::mt19937_64 m_rng;
};

} // namespace ts
