#pragma once

#include "models/FeatureEncoder.h"
#include "models/PriorSource.h"
#include "models/XgbModel.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ts {

// What other measurements of the same kernel say about a space before anything is measured in it
// (transfer learning, as AutoTVM's and Ansor's warm starts): a regressor of each source's log time relative
// to that source's fastest config (0 = as fast as the fastest there, so sources of different speed agree),
// and a validity classifier on the sources' statuses. Trained once on the target space's features, with
// the whole product's predictions tabulated when it has at most a few million configs; immutable afterwards,
// so one instance serves many strategies on several threads.
class TransferPrior {
public:
    // Sources are matched to the target by parameter name and value; a source whose parameter names differ
    // from the target's contributes nothing. Throws Error when no source has two Ok configs that map into
    // the target space. The target space must outlive the prior.
    //
    // Hardware-aware (zero-shot transfer to another GPU): with `targetHardware`, the target configs' hardware
    // features on the target GPU and that GPU's own (the same columns as the sources' `hardware`), and when
    // every source that contributes has such a table, the models also learn from each source config's
    // features on its own GPU, so the target's predictions are made for its hardware rather than copied
    // from another GPU's ranking. Otherwise (hardwareAware() false) the prior uses the parameters alone.
    TransferPrior(const SearchSpace& target, std::span<const PriorSource> sources, XgbSettings settings = {},
                  std::shared_ptr<const ConfigFeatureTable> targetHardware = nullptr);

    // True when the source has exactly the target's parameter names.
    static bool compatible(const SearchSpace& target, const SearchSpace& source);

    const std::vector<std::string>& sources() const { return m_sources; }
    std::size_t rows() const { return m_rows; }
    bool hardwareAware() const { return m_hardware != nullptr; }

    // Log time relative to the sources' fastest configs.
    std::vector<double> predictLog(std::span<const SearchSpace::Index> indices) const {
        return lookUp(indices, true);
    }
    // Probability that the config is valid, as the sources saw it.
    std::vector<double> predictValid(std::span<const SearchSpace::Index> indices) const {
        return lookUp(indices, false);
    }
    // Product indices of the configs the prior ranks best (P(valid) x relative speed), best first: of the
    // whole product when it is tabulated, else of configs drawn uniformly from it (never from the target's
    // valid configs, which in product-mode replay are the configs its dataset measured).
    const std::vector<SearchSpace::Index>& favourites() const { return m_favourites; }

private:
    // Both predictions for encoded rows.
    std::pair<std::vector<float>, std::vector<float>>
    predictRows(std::span<const SearchSpace::Index> indices) const;
    // From the table when there is one, else predicted: log times (time) or P(valid).
    std::vector<double> lookUp(std::span<const SearchSpace::Index> indices, bool time) const;
    // Predictions for the whole product when it is small enough to keep, and the favourites (drawn from
    // larger products with this seed).
    void tabulate(std::uint64_t seed);

    // Training rows: the generic features of the mapped target configs, then (hardware-aware) each one's
    // hardware features from its source's table.
    std::vector<float>
    encodeTraining(std::span<const SearchSpace::Index> targetIndices,
                   std::span<const std::pair<const ConfigFeatureTable*, SearchSpace::Index>> origins) const;

    FeatureEncoder m_encoder; // the target's configs, with the target's hardware features when aware
    FeatureEncoder m_generic; // the parameters alone
    std::shared_ptr<const ConfigFeatureTable> m_hardware;
    XgbModel m_time;
    XgbModel m_validity;
    const SearchSpace* m_target;
    std::vector<std::string> m_sources;
    std::vector<float> m_tableLog, m_tableValid; // per product index; empty for very large products
    std::vector<SearchSpace::Index> m_favourites;
    std::size_t m_rows = 0;
};

} // namespace ts
