#include "models/TransferPrior.h"

#include "util/Error.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <unordered_set>

namespace ts {

namespace {

constexpr std::size_t kMostOkRowsPerSource = 12000; // a random subset of larger sources keeps training short
constexpr SearchSpace::Index kMostTabulated = SearchSpace::Index(1) << 22; // 32 MiB of predictions
constexpr SearchSpace::Index kChunk = 16384;                               // rows predicted at once
constexpr std::size_t kFavourites = 4096;
// Configs drawn from a product too large to tabulate: as many as the target has valid configs (what was
// scored before), and at least 64 per favourite.
constexpr SearchSpace::Index kLeastDraws = 64 * kFavourites;
constexpr std::uint64_t kFavouriteSeed = 0x6661766f75726974; // the draws' own stream, apart from training's

XgbSettings priorSettings(XgbSettings settings, const std::string& objective) {
    settings.objective = objective;
    settings.rounds = 150;
    settings.maxDepth = 8;
    settings.eta = 0.15;
    settings.earlyStoppingRounds = 15;
    return settings;
}

// Maps product indices of a source space into the target space by parameter name and value.
class IndexMapper {
public:
    IndexMapper(const SearchSpace& target, const SearchSpace& source) : m_target(&target), m_source(&source) {
        for (const Parameter& parameter : target.parameters())
            m_positions.push_back(*source.parameterIndex(parameter.name));
    }

    std::optional<SearchSpace::Index> operator()(SearchSpace::Index index) const {
        Config config = m_source->config(index);
        Config reordered;
        reordered.reserve(config.size());
        for (std::size_t position : m_positions)
            reordered.push_back(config[position]);
        return m_target->indexOf(reordered);
    }

private:
    const SearchSpace* m_target;
    const SearchSpace* m_source;
    std::vector<std::size_t> m_positions; // per target parameter, its position in the source
};

using Origin = std::pair<const ConfigFeatureTable*, SearchSpace::Index>; // a source's table and its index

struct TrainingRows {
    std::vector<SearchSpace::Index> timeIndices, validityIndices;
    std::vector<Origin> timeOrigins, validityOrigins;
    std::vector<float> timeLabels, validityLabels;
};

void addSource(const SearchSpace& target, const PriorSource& source, std::mt19937_64& rng,
               TrainingRows& out) {
    IndexMapper map(target, *source.space);
    auto entries = source.entries;
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const ConfigFeatureTable* table = source.hardware.get();
    struct OkRow {
        SearchSpace::Index mapped, index;
        double time;
    };
    std::vector<OkRow> ok;
    for (const auto& [index, measurement] : entries) {
        auto mapped = map(index);
        if (!mapped)
            continue;
        bool valid = measurement.status == MeasureStatus::Ok && measurement.objective > 0.0;
        if (valid)
            ok.push_back({*mapped, index, measurement.objective});
        out.validityIndices.push_back(*mapped);
        out.validityOrigins.emplace_back(table, index);
        out.validityLabels.push_back(valid ? 1.0f : 0.0f);
    }
    if (ok.empty())
        return;
    double fastest = std::min_element(ok.begin(), ok.end(), [](const OkRow& a, const OkRow& b) {
                         return a.time < b.time;
                     })->time;
    std::shuffle(ok.begin(), ok.end(), rng);
    ok.resize(std::min(ok.size(), kMostOkRowsPerSource));
    for (const OkRow& row : ok) {
        out.timeIndices.push_back(row.mapped);
        out.timeOrigins.emplace_back(table, row.index);
        out.timeLabels.push_back(static_cast<float>(std::log(row.time / fastest)));
    }
    if (!source.absentAreInvalid)
        return;
    // As many configs absent from the product as there are entries teach the classifier what fails there.
    std::unordered_set<SearchSpace::Index> present;
    for (const auto& entry : entries)
        present.insert(entry.first);
    SearchSpace::Index product = source.space->productSize();
    std::size_t wanted = std::min<std::size_t>(entries.size(), product - present.size());
    std::uniform_int_distribution<SearchSpace::Index> draw(0, product - 1);
    std::unordered_set<SearchSpace::Index> taken;
    for (std::size_t attempt = 0; taken.size() < wanted && attempt < 20 * wanted; ++attempt) {
        SearchSpace::Index index = draw(rng);
        if (present.contains(index) || !taken.insert(index).second)
            continue;
        if (auto mapped = map(index)) {
            out.validityIndices.push_back(*mapped);
            out.validityOrigins.emplace_back(table, index);
            out.validityLabels.push_back(0.0f);
        }
    }
}

} // namespace

bool TransferPrior::compatible(const SearchSpace& target, const SearchSpace& source) {
    if (target.dimension() != source.dimension())
        return false;
    for (const Parameter& parameter : target.parameters())
        if (!source.parameterIndex(parameter.name))
            return false;
    return true;
}

TransferPrior::TransferPrior(const SearchSpace& target, std::span<const PriorSource> sources,
                             XgbSettings settings, std::shared_ptr<const ConfigFeatureTable> targetHardware)
    : m_generic(target), m_time(priorSettings(settings, "reg:squarederror")),
      m_validity(priorSettings(settings, "binary:logistic")), m_target(&target) {
    std::mt19937_64 rng(settings.seed);
    TrainingRows rows;
    bool everySourceHasHardware = true;
    for (const PriorSource& source : sources) {
        if (!source.space || !compatible(target, *source.space))
            continue;
        std::size_t before = rows.timeLabels.size();
        addSource(target, source, rng, rows);
        if (rows.timeLabels.size() > before) {
            m_sources.push_back(source.label);
            everySourceHasHardware = everySourceHasHardware && source.hardware && targetHardware &&
                                     source.hardware->width() == targetHardware->width();
        }
    }
    if (rows.timeLabels.size() < 2)
        throw Error("no prior source has two working configs of this space's parameters, so there is nothing "
                    "to transfer");
    if (everySourceHasHardware)
        m_hardware = std::move(targetHardware);
    m_encoder = FeatureEncoder(target, m_hardware);
    m_rows = rows.timeLabels.size();
    m_time.train(encodeTraining(rows.timeIndices, rows.timeOrigins), m_encoder.width(), rows.timeLabels);
    bool bothOutcomes =
        std::find(rows.validityLabels.begin(), rows.validityLabels.end(), 0.0f) != rows.validityLabels.end();
    if (bothOutcomes)
        m_validity.train(encodeTraining(rows.validityIndices, rows.validityOrigins), m_encoder.width(),
                         rows.validityLabels);
    tabulate(settings.seed ^ kFavouriteSeed);
}

std::vector<float> TransferPrior::encodeTraining(std::span<const SearchSpace::Index> targetIndices,
                                                 std::span<const Origin> origins) const {
    if (!m_hardware)
        return m_generic.encode(*m_target, targetIndices);
    const std::size_t generic = m_generic.width(), width = m_encoder.width();
    std::vector<float> rows(targetIndices.size() * width);
    for (std::size_t r = 0; r < targetIndices.size(); ++r) {
        std::span<float> row = std::span<float>(rows).subspan(r * width, width);
        m_generic.encode(*m_target, targetIndices[r], row.first(generic));
        origins[r].first->encode(origins[r].second, row.subspan(generic));
    }
    return rows;
}

std::pair<std::vector<float>, std::vector<float>>
TransferPrior::predictRows(std::span<const SearchSpace::Index> indices) const {
    XgbMatrix features(m_encoder.encode(*m_target, indices), indices.size(), m_encoder.width(),
                       m_time.settings().threads);
    std::vector<float> valid =
        m_validity.isTrained() ? m_validity.predict(features) : std::vector<float>(indices.size(), 1.0f);
    return {m_time.predict(features), std::move(valid)};
}

void TransferPrior::tabulate(std::uint64_t seed) {
    const SearchSpace::Index product = m_target->productSize();
    std::vector<std::pair<float, SearchSpace::Index>> best; // (-score, index), the kFavourites best so far
    auto visit = [&](std::span<const SearchSpace::Index> indices) {
        auto [time, valid] = predictRows(indices);
        for (std::size_t i = 0; i < indices.size(); ++i)
            best.emplace_back(-valid[i] * std::exp(-time[i]), indices[i]);
        std::size_t keep = std::min(best.size(), kFavourites);
        std::partial_sort(best.begin(), best.begin() + keep, best.end());
        best.resize(keep);
        if (product <= kMostTabulated) {
            m_tableLog.insert(m_tableLog.end(), time.begin(), time.end());
            m_tableValid.insert(m_tableValid.end(), valid.begin(), valid.end());
        }
    };
    // Very large products: favourites among configs drawn from the whole product, never from the target's
    // valid configs (in product-mode replay those are the configs the dataset measured Ok or failed: an
    // oracle). One draw in each of `count` equal strata of the product: distinct, spread over it, no memory.
    const bool whole = product <= kMostTabulated;
    const SearchSpace::Index count =
        whole ? product : std::clamp(m_target->validCount(), kLeastDraws, product);
    const SearchSpace::Index stride = whole ? 1 : product / count; // strata of this size,
    const SearchSpace::Index longer = whole ? 0 : product % count; // the first `longer` of them one longer
    std::mt19937_64 rng(seed);
    auto drawn = [&](SearchSpace::Index stratum) {
        SearchSpace::Index first = stratum * stride + std::min(stratum, longer);
        SearchSpace::Index size = stride + (stratum < longer ? 1 : 0);
        return first + std::uniform_int_distribution<SearchSpace::Index>(0, size - 1)(rng);
    };
    std::vector<SearchSpace::Index> chunk;
    for (SearchSpace::Index start = 0; start < count; start += kChunk) {
        chunk.clear();
        for (SearchSpace::Index i = start; i < std::min(count, start + kChunk); ++i)
            chunk.push_back(whole ? i : drawn(i));
        visit(chunk);
    }
    for (const auto& entry : best)
        m_favourites.push_back(entry.second);
}

std::vector<double> TransferPrior::lookUp(std::span<const SearchSpace::Index> indices, bool time) const {
    const std::vector<float>& table = time ? m_tableLog : m_tableValid;
    std::vector<double> result;
    result.reserve(indices.size());
    if (table.empty()) {
        auto [log, valid] = predictRows(indices);
        const std::vector<float>& raw = time ? log : valid;
        result.assign(raw.begin(), raw.end());
        return result;
    }
    for (SearchSpace::Index index : indices)
        result.push_back(table[index]);
    return result;
}

} // namespace ts
