#include "CompareReport.h"

#include "util/Error.h"

#include <fmt/format.h>

namespace ts::cli {

namespace {

// A strategy's runs count as having spent a budget when they evaluated at least this share of it (of the
// space, where the space is smaller).
constexpr double kBudgetUsedInFull = 0.995;

} // namespace

nlohmann::json toJson(const CompareResult& result, const CompareSettings& settings,
                      const std::vector<std::shared_ptr<const Dataset>>& datasets) {
    nlohmann::json out;
    out["budgets"] = settings.budgets;
    out["repeats"] = settings.repeats;
    out["space"] = toString(settings.mode);
    out["seconds"] = result.seconds;
    for (std::size_t d = 0; d < datasets.size(); ++d) {
        nlohmann::json entry{{"file", datasets[d]->path.string()},
                             {"device", datasets[d]->deviceName},
                             {"kernel", datasets[d]->kernelName},
                             {"random_expectation", result.randomExpectation[d]}};
        for (const auto& [strategy, perDataset] : result.fraction)
            entry["fraction"][strategy] = perDataset[d];
        for (const auto& [strategy, perDataset] : result.budgetUsed)
            entry["budget_used"][strategy] = perDataset[d];
        out["datasets"].push_back(entry);
    }
    for (const auto& [strategy, mean] : result.meanFraction)
        out["strategies"][strategy] = {{"mean_fraction", mean},
                                       {"budget_used", result.meanBudgetUsed.at(strategy)},
                                       {"score", result.score.at(strategy)}};
    return out;
}

void printTable(const CompareResult& result, const CompareSettings& settings,
                const std::vector<std::shared_ptr<const Dataset>>& datasets) {
    auto header = [&](const std::string& title) {
        fmt::print("\n{:<28}", title);
        for (std::int64_t b : settings.budgets)
            fmt::print("{:>8}", b);
        fmt::print("\n");
    };
    // A cell whose runs stopped before spending its budget is marked; the note under the table says by how
    // much.
    std::vector<std::string> shortfalls;
    auto row = [&](const std::string& name, const std::vector<double>& values,
                   const std::vector<double>* used, const std::string& tail, bool note) {
        fmt::print("{:<28}", name);
        for (std::size_t b = 0; b < values.size(); ++b) {
            const bool short_ = used && (*used)[b] < kBudgetUsedInFull;
            fmt::print("{:>8}", fmt::format("{:.3f}{}", values[b], short_ ? "*" : ""));
            if (short_ && note)
                shortfalls.push_back(fmt::format("{} at {}: {:.0f}% of the budget", name, settings.budgets[b],
                                                 100.0 * (*used)[b]));
        }
        fmt::print("{}\n", tail);
    };
    for (std::size_t d = 0; d < datasets.size(); ++d) {
        header(fmt::format("{} / {}", datasets[d]->kernelName,
                           datasets[d]->deviceName.empty() ? datasets[d]->path.filename().string()
                                                           : datasets[d]->deviceName));
        for (const auto& [strategy, perDataset] : result.fraction)
            row(strategy, perDataset[d], &result.budgetUsed.at(strategy)[d], "", false);
        row("(random, exact expectation)", result.randomExpectation[d], nullptr, "", false);
    }
    header(fmt::format("mean over {} dataset(s)", datasets.size()));
    for (const auto& [strategy, mean] : result.meanFraction)
        row(strategy, mean, &result.meanBudgetUsed.at(strategy),
            fmt::format("   score {:+.3f}", result.score.at(strategy)), true);
    if (!shortfalls.empty()) {
        fmt::print("* the runs stopped before spending the budget (unique configs evaluated, mean over the "
                   "datasets; the best found stands for the rest):\n");
        for (const std::string& line : shortfalls)
            fmt::print("  {}\n", line);
    }
    fmt::print("\nfraction of optimum at each budget (mean of {} seeds), {} mode; score: methodology score "
               "vs random sampling (0 = random, 1 = optimum at once)\n",
               settings.repeats, toString(settings.mode));
    if (settings.transfer)
        fmt::print(
            "warm starts: xgb started from the other datasets of the same kernel (leave one device out); "
            "datasets without such a sibling and the other strategies started cold\n");
    else if (!settings.priors.empty())
        fmt::print("warm starts: xgb started from the {} prior dataset(s) given, on every dataset with their "
                   "parameter names; the others and the other strategies started cold\n",
                   settings.priors.size());
    else
        fmt::print("cold starts: no strategy started from another measurement (--transfer or --prior for "
                   "warm starts)\n");
    fmt::print("{} runs in {:.2f} s\n", result.runs.size(), result.seconds);
}

void writeJson(OutputFile& output, const CompareResult& result, const CompareSettings& settings,
               const std::vector<std::shared_ptr<const Dataset>>& datasets) {
    output.write(toJson(result, settings, datasets).dump(2) + '\n');
    output.commit();
}

} // namespace ts::cli
