#include "analysis/ParameterImportance.h"

#include "models/XgbModel.h"
#include "util/Error.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>

namespace ts {

namespace {

// Rows of one prediction call: bounds the memory of the main-effect grid whatever the number of values.
constexpr std::size_t kMaxPredictRows = 65536;

bool usable(const Trial& trial, std::size_t parameterCount) {
    const double time = trial.measurement.objective;
    return trial.measurement.status == MeasureStatus::Ok && std::isfinite(time) && time > 0.0 &&
           trial.config.size() == parameterCount;
}

// `count` positions of [0, size), evenly spaced and in order (all of them when size <= count).
std::vector<std::size_t> evenlySpaced(std::size_t size, std::size_t count) {
    std::vector<std::size_t> positions;
    const std::size_t k = std::min(size, count);
    positions.reserve(k);
    for (std::size_t i = 0; i < k; ++i)
        positions.push_back(static_cast<std::size_t>(static_cast<unsigned long long>(i) * size / k));
    return positions;
}

// The distinct values of one parameter among the trials, in the order its feature ranks them.
struct ValueAxis {
    std::vector<Value> values;
    std::map<std::string, std::size_t> rank; // toString(value) -> position in values
};

ValueAxis valueAxis(const Parameter& parameter, std::size_t p, const std::vector<const Trial*>& trials) {
    std::map<std::string, Value> distinct;
    for (const Trial* trial : trials)
        distinct.emplace(toString(trial->config[p]), trial->config[p]);
    bool numeric = true;
    for (const auto& [key, value] : distinct)
        numeric = numeric && isNumeric(value) && std::isfinite(toNumber(value));
    auto listPosition = [&](const std::string& key) {
        for (std::size_t i = 0; i < parameter.values.size(); ++i)
            if (toString(parameter.values[i]) == key)
                return i;
        return parameter.values.size();
    };
    struct Entry {
        double order;
        std::string key;
        Value value;
    };
    std::vector<Entry> entries;
    for (const auto& [key, value] : distinct)
        entries.push_back({numeric ? toNumber(value) : static_cast<double>(listPosition(key)), key, value});
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return a.order != b.order ? a.order < b.order : a.key < b.key;
    });
    ValueAxis axis;
    for (Entry& entry : entries) {
        axis.rank.emplace(entry.key, axis.values.size());
        axis.values.push_back(std::move(entry.value));
    }
    return axis;
}

// The value ranks a main effect is evaluated at: all of them, or kMaxEffectValues spread evenly from the
// first to the last.
std::vector<std::size_t> effectRanks(std::size_t valueCount) {
    const std::size_t k = std::min(valueCount, ParameterImportance::kMaxEffectValues);
    std::vector<std::size_t> ranks;
    for (std::size_t i = 0; i < k; ++i)
        ranks.push_back(k == valueCount ? i : (i * (valueCount - 1) + (k - 1) / 2) / (k - 1));
    return ranks;
}

// The model's mean prediction over the background rows with column p set to each of the value ranks.
std::vector<double> mainEffect(const XgbModel& model, const std::vector<float>& background, std::size_t width,
                               std::size_t p, const std::vector<std::size_t>& ranks) {
    const std::size_t rows = background.size() / width;
    const std::size_t valuesPerCall = std::max<std::size_t>(1, kMaxPredictRows / rows);
    std::vector<double> effect;
    effect.reserve(ranks.size());
    for (std::size_t first = 0; first < ranks.size(); first += valuesPerCall) {
        const std::size_t count = std::min(valuesPerCall, ranks.size() - first);
        std::vector<float> grid;
        grid.reserve(count * background.size());
        for (std::size_t v = first; v < first + count; ++v) {
            const std::size_t start = grid.size();
            grid.insert(grid.end(), background.begin(), background.end());
            for (std::size_t r = 0; r < rows; ++r)
                grid[start + r * width + p] = static_cast<float>(ranks[v]);
        }
        const std::vector<float> predicted = model.predict(grid, width);
        for (std::size_t v = 0; v < count; ++v) {
            double sum = 0.0;
            for (std::size_t r = 0; r < rows; ++r)
                sum += predicted[v * rows + r];
            effect.push_back(sum / static_cast<double>(rows));
        }
    }
    return effect;
}

void describeEffect(ParameterEffect& out, const std::vector<double>& effect,
                    const std::vector<std::size_t>& ranks, const ValueAxis& axis) {
    double mean = 0.0;
    for (double e : effect)
        mean += e;
    mean /= static_cast<double>(effect.size());
    double variance = 0.0;
    for (double e : effect)
        variance += (e - mean) * (e - mean);
    out.variance = variance / static_cast<double>(effect.size());
    const auto [low, high] = std::minmax_element(effect.begin(), effect.end());
    out.spread = std::exp(*high - *low);
    out.bestValue = axis.values[ranks[static_cast<std::size_t>(low - effect.begin())]];
}

} // namespace

std::size_t ParameterImportance::usableCount(std::span<const Trial> trials, std::size_t parameterCount) {
    return static_cast<std::size_t>(std::count_if(trials.begin(), trials.end(),
                                                  [&](const Trial& t) { return usable(t, parameterCount); }));
}

ImportanceResult ParameterImportance::compute(const std::vector<Parameter>& parameters,
                                              std::span<const Trial> trials) {
    const std::size_t width = parameters.size();
    std::vector<const Trial*> used;
    for (const Trial& trial : trials)
        if (usable(trial, width))
            used.push_back(&trial);
    if (used.size() < kMinTrials)
        throw Error(fmt::format("Parameter importance needs at least {} successful trials with a positive "
                                "time; there are {}.",
                                kMinTrials, used.size()));
    ImportanceResult result;
    result.excluded = trials.size() - used.size();
    if (used.size() > kMaxTraining) {
        std::vector<const Trial*> kept;
        for (std::size_t i : evenlySpaced(used.size(), kMaxTraining))
            kept.push_back(used[i]);
        result.excluded += used.size() - kept.size();
        used = std::move(kept);
    }
    result.trials = used.size();

    std::vector<ValueAxis> axes;
    for (std::size_t p = 0; p < width; ++p)
        axes.push_back(valueAxis(parameters[p], p, used));
    std::vector<float> rows(used.size() * width);
    std::vector<float> labels;
    labels.reserve(used.size());
    for (std::size_t r = 0; r < used.size(); ++r) {
        for (std::size_t p = 0; p < width; ++p)
            rows[r * width + p] = static_cast<float>(axes[p].rank.at(toString(used[r]->config[p])));
        labels.push_back(static_cast<float>(std::log(used[r]->measurement.objective)));
    }
    XgbModel model; // XgbSettings defaults: seed 0, one thread
    if (width > 0)
        model.train(rows, width, labels);

    std::vector<float> background;
    for (std::size_t r : evenlySpaced(used.size(), kMaxBackground))
        background.insert(background.end(), rows.begin() + r * width, rows.begin() + (r + 1) * width);
    double total = 0.0;
    for (std::size_t p = 0; p < width; ++p) {
        ParameterEffect effect;
        effect.parameter = parameters[p].name;
        effect.position = p;
        effect.bestValue = axes[p].values.front();
        effect.values = axes[p].values.size();
        if (axes[p].values.size() >= 2) {
            const std::vector<std::size_t> ranks = effectRanks(axes[p].values.size());
            describeEffect(effect, mainEffect(model, background, width, p, ranks), ranks, axes[p]);
        }
        total += effect.variance;
        result.ranked.push_back(std::move(effect));
    }
    // Below this, the model's predictions do not change with any parameter (float rounding only).
    constexpr double kNoVariance = 1e-12;
    for (ParameterEffect& effect : result.ranked)
        effect.importance = total > kNoVariance ? effect.variance / total : 0.0;
    std::stable_sort(
        result.ranked.begin(), result.ranked.end(),
        [](const ParameterEffect& a, const ParameterEffect& b) { return a.importance > b.importance; });
    return result;
}

} // namespace ts
