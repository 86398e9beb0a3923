// Hardware-aware cost models against parameters-only ones, on replayed spaces with a static profile. For each
// dataset, number of observations n (25, 50, 100, 200) and seed, n configs drawn uniformly from the dataset's
// Ok configs train the xgb strategy's regressor of log time (its default settings) twice: on the generic
// parameter features alone, and with the profile's hardware features beside them (option hardware=true).
// Each then ranks every Ok config it was not trained on: Spearman correlation with the measured times, and
// top-k recall (of the k fastest unseen configs, the share among the k predicted fastest; k = 1 % of them,
// at least 10). Means over the seeds.
// Then the static cost model (StaticCostModel: roofline over hand-set efficiencies) per dataset: the Spearman
// correlation of its estimates with the measured times of the Ok configs that fit, and the same with its
// terms' weights refitted (least squares of log time over the dataset's fastest on the log of each term and
// of the occupancy) on the other datasets of the same kernel, never on the dataset ranked.
// Last, zero-shot transfer: per dataset, the transfer prior built from the other datasets of its kernel
// (leave one GPU out), parameters only and hardware-aware, ranks the dataset's Ok configs before any is
// measured. Only configs with a profile row are ranked and trained on (a partial profile, --sample, is a
// subset). Usage: bench_hardware_models [--seeds N] DATASET...   (each DATASET with its companion .profile)
#include "hardware/GpuDatabase.h"
#include "hardware/StaticCostModel.h"
#include "models/ModelQuality.h"
#include "models/XgbCostModel.h"
#include "datasets/DatasetProfile.h"
#include "datasets/DatasetReader.h"
#include "datasets/ProfileFeatures.h"
#include "datasets/TransferSources.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>

using namespace ts;

namespace {

constexpr std::size_t kObservations[] = {25, 50, 100, 200};

struct Quality {
    double spearman = 0.0;
    double recall = 0.0;
};

Quality rankUnseen(const Dataset& dataset, const std::vector<Trial>& seen, const std::vector<Trial>& unseen,
                   std::shared_ptr<const ConfigFeatureTable> features, std::uint64_t seed) {
    XgbSettings settings;
    settings.rounds = 40; // the xgb strategy's defaults
    settings.maxDepth = 6;
    settings.seed = seed;
    XgbCostModel model(dataset.space, settings, nullptr, std::move(features));
    model.update(seen);
    std::vector<SearchSpace::Index> indices;
    std::vector<double> actual;
    for (const Trial& trial : unseen) {
        indices.push_back(trial.index);
        actual.push_back(trial.measurement.objective);
    }
    const std::vector<double> predicted = model.predictLog(indices);
    const std::size_t k = std::max<std::size_t>(10, unseen.size() / 100);
    return {spearman(predicted, actual), topKRecall(predicted, actual, k)};
}

// The static model's view of one dataset: per Ok config that fits, its hand-set estimate, the log of its
// terms, and its measured log time over the dataset's fastest.
struct StaticView {
    std::string name;
    std::string kernel;
    std::vector<double> estimate, time;
    std::vector<std::array<double, 5>> terms;
    std::vector<double> logRelative;
};

StaticView staticView(const Dataset& dataset, const DatasetProfile& profile) {
    StaticView view{dataset.path.filename().string(), dataset.kernelName, {}, {}, {}, {}};
    const GpuSpec& gpu = GpuDatabase::builtin().get(profile.gpu);
    const OccupancyCalculator calculator(gpu);
    const StaticCostModel model(gpu, std::nullopt, std::nullopt, 0.0, nullptr);
    const double optimum = dataset.optimum().value_or(1.0);
    for (const auto& [key, row] : profile.configs) {
        const auto index = dataset.space.indexOfKey(key);
        auto entry = index ? dataset.entries.find(*index) : dataset.entries.end();
        if (entry == dataset.entries.end() || entry->second.status != MeasureStatus::Ok)
            continue;
        const StaticProfile p = staticProfileOf(row, calculator);
        if (!p.fits())
            continue;
        const StaticCostModel::Efficiency e = model.efficiency(p);
        view.estimate.push_back(model.estimateMs(p));
        view.time.push_back(entry->second.objective);
        view.terms.push_back({std::log(std::max(p.occupancy.occupancy, 1e-3)), std::log(e.hiding),
                              std::log(e.fill), std::log(e.tail), std::log(e.spill)});
        view.logRelative.push_back(std::log(entry->second.objective / optimum));
    }
    return view;
}

// Least squares of y on [1, terms] over the views (ridge 1e-6 keeps a constant term solvable).
std::array<double, 6> fitTerms(const std::vector<const StaticView*>& views) {
    constexpr std::size_t n = 6;
    double a[n][n + 1] = {};
    for (const StaticView* view : views)
        for (std::size_t r = 0; r < view->terms.size(); ++r) {
            double x[n] = {1.0};
            std::copy(view->terms[r].begin(), view->terms[r].end(), x + 1);
            for (std::size_t i = 0; i < n; ++i) {
                for (std::size_t j = 0; j < n; ++j)
                    a[i][j] += x[i] * x[j];
                a[i][n] += x[i] * view->logRelative[r];
            }
        }
    for (std::size_t i = 0; i < n; ++i)
        a[i][i] += 1e-6;
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t pivot = c;
        for (std::size_t r = c + 1; r < n; ++r)
            if (std::abs(a[r][c]) > std::abs(a[pivot][c]))
                pivot = r;
        std::swap(a[c], a[pivot]);
        for (std::size_t r = 0; r < n; ++r)
            if (r != c && a[c][c] != 0.0) {
                const double f = a[r][c] / a[c][c];
                for (std::size_t k = c; k <= n; ++k)
                    a[r][k] -= f * a[c][k];
            }
    }
    std::array<double, n> w{};
    for (std::size_t i = 0; i < n; ++i)
        w[i] = a[i][i] != 0.0 ? a[i][n] / a[i][i] : 0.0;
    return w;
}

void printStaticModel(const std::vector<StaticView>& views) {
    fmt::print(
        "\n| dataset | Ok configs that fit | Spearman, hand-set static model | Spearman, terms refitted on "
        "the other GPUs | weights (occupancy, hiding, fill, tail, spill) |\n|---|---|---|---|---|\n");
    for (const StaticView& view : views) {
        std::vector<const StaticView*> others;
        for (const StaticView& other : views)
            if (&other != &view && other.kernel == view.kernel)
                others.push_back(&other);
        std::string refit = "(no other GPU)", weights = "";
        if (!others.empty()) {
            const std::array<double, 6> w = fitTerms(others);
            std::vector<double> predicted;
            for (const auto& t : view.terms)
                predicted.push_back(w[0] + w[1] * t[0] + w[2] * t[1] + w[3] * t[2] + w[4] * t[3] +
                                    w[5] * t[4]);
            refit = fmt::format("{:.3f}", spearman(predicted, view.time));
            weights = fmt::format("{:.2f}, {:.2f}, {:.2f}, {:.2f}, {:.2f}", w[1], w[2], w[3], w[4], w[5]);
        }
        fmt::print("| {} | {} | {:.3f} | {} | {} |\n", view.name, view.time.size(),
                   spearman(view.estimate, view.time), refit, weights);
    }
}

void printZeroShot(const std::vector<std::shared_ptr<const Dataset>>& datasets) {
    fmt::print(
        "\n| dataset | Spearman, prior from parameters | Spearman, hardware-aware prior | top-k recall, "
        "parameters | top-k recall, hardware-aware |\n|---|---|---|---|---|\n");
    for (std::size_t d = 0; d < datasets.size(); ++d) {
        const auto plain = leaveOneOutPrior(datasets, d, 2, false);
        const auto aware = leaveOneOutPrior(datasets, d, 2, true);
        if (!plain || !aware)
            continue;
        const auto features = transferFeatures(*datasets[d]);
        std::vector<SearchSpace::Index> indices;
        std::vector<double> times;
        for (const auto& [index, m] : datasets[d]->entries)
            if (m.status == MeasureStatus::Ok && m.objective > 0.0 && features && features->has(index)) {
                indices.push_back(index);
                times.push_back(m.objective);
            }
        const std::size_t k = std::max<std::size_t>(10, indices.size() / 100);
        const std::vector<double> a = plain->predictLog(indices), b = aware->predictLog(indices);
        fmt::print("| {} | {:.3f} | {} | {:.3f} | {} |\n", datasets[d]->path.filename().string(),
                   spearman(a, times),
                   aware->hardwareAware() ? fmt::format("{:.3f}", spearman(b, times)) : "(not aware)",
                   topKRecall(a, times, k),
                   aware->hardwareAware() ? fmt::format("{:.3f}", topKRecall(b, times, k)) : "(not aware)");
        std::fflush(stdout);
    }
}

} // namespace

int main(int argc, char** argv) {
    int seeds = 30;
    std::vector<std::string> paths;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--seeds") == 0 && i + 1 < argc)
            seeds = std::atoi(argv[++i]);
        else
            paths.push_back(argv[i]);
    }
    if (paths.empty() || seeds < 1) {
        fmt::print(stderr, "usage: bench_hardware_models [--seeds N] DATASET...\n");
        return 2;
    }
    fmt::print(
        "| dataset | observations | Spearman, parameters | Spearman, + hardware | top-k recall, parameters "
        "| top-k recall, + hardware |\n|---|---|---|---|---|---|\n");
    std::vector<StaticView> views;
    std::vector<std::shared_ptr<const Dataset>> profiled;
    for (const std::string& path : paths) {
        auto loaded = std::make_shared<const Dataset>(readDataset(path));
        const Dataset& dataset = *loaded;
        const auto profile = DatasetProfile::companionOf(dataset);
        if (!profile) {
            fmt::print(stderr, "{} has no static profile; skipped\n", path);
            continue;
        }
        const auto features = profileFeatures(dataset, *profile);
        views.push_back(staticView(dataset, *profile));
        profiled.push_back(loaded);
        std::vector<Trial> ok;
        for (const auto& [index, measurement] : dataset.entries)
            if (measurement.status == MeasureStatus::Ok && measurement.objective > 0.0 &&
                features->has(index)) {
                Trial trial;
                trial.index = index;
                trial.measurement = measurement;
                ok.push_back(trial);
            }
        std::sort(ok.begin(), ok.end(), [](const Trial& a, const Trial& b) { return a.index < b.index; });
        for (std::size_t n : kObservations) {
            Quality plain, hardware;
            for (int seed = 0; seed < seeds; ++seed) {
                std::vector<Trial> shuffled = ok;
                std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(seed));
                const std::vector<Trial> seen(shuffled.begin(), shuffled.begin() + std::ptrdiff_t(n));
                const std::vector<Trial> unseen(shuffled.begin() + std::ptrdiff_t(n), shuffled.end());
                const Quality a = rankUnseen(dataset, seen, unseen, nullptr, seed);
                const Quality b = rankUnseen(dataset, seen, unseen, features, seed);
                plain.spearman += a.spearman / seeds;
                plain.recall += a.recall / seeds;
                hardware.spearman += b.spearman / seeds;
                hardware.recall += b.recall / seeds;
            }
            fmt::print("| {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n", dataset.path.filename().string(),
                       n, plain.spearman, hardware.spearman, plain.recall, hardware.recall);
            std::fflush(stdout);
        }
    }
    printStaticModel(views);
    printZeroShot(profiled);
    return 0;
}
