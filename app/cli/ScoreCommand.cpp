#include "CliSupport.h"
#include "Commands.h"
#include "CompareReport.h"

#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <fstream>
#include <set>

namespace ts::cli {

namespace {

struct ScoreOptions {
    std::vector<std::string> datasets;
    std::string trace;
    std::string budgets = "25,50,100,200,400";
    std::string space = "product";
    std::string json;
};

// The dataset a trace line names: the same path as given, or failing that the same absolute path.
std::optional<std::size_t> findDataset(const std::vector<std::shared_ptr<const Dataset>>& datasets,
                                       const std::string& name) {
    for (std::size_t d = 0; d < datasets.size(); ++d)
        if (datasets[d]->path.string() == name)
            return d;
    std::error_code error;
    auto wanted = std::filesystem::weakly_canonical(name, error);
    for (std::size_t d = 0; d < datasets.size(); ++d)
        if (!error && std::filesystem::weakly_canonical(datasets[d]->path, error) == wanted)
            return d;
    return std::nullopt;
}

std::vector<CompareRun> readTrace(const std::string& path,
                                  const std::vector<std::shared_ptr<const Dataset>>& datasets,
                                  std::int64_t budget, std::vector<std::string>& strategies) {
    std::ifstream in(path);
    if (!in)
        throw Error(fmt::format("Cannot read the trace file {}.", path));
    std::vector<CompareRun> runs;
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        if (text.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        nlohmann::json item = parseBoundedJson(text, fmt::format("{}:{}", path, line));
        if (item.is_discarded() || !item.is_object() || !item.contains("strategy") ||
            !item.contains("dataset") || !item.contains("configs") || !item["configs"].is_array())
            throw Error(fmt::format("{}:{}: not a trace line (JSON with strategy, dataset, seed, configs).",
                                    path, line));
        auto dataset = findDataset(datasets, item["dataset"].get<std::string>());
        if (!dataset)
            throw Error(fmt::format("{}:{}: dataset {} was not given with --dataset.", path, line,
                                    item["dataset"].get<std::string>()));
        std::vector<SearchSpace::Index> configs;
        for (const auto& key : item["configs"]) {
            auto index =
                key.is_string() ? datasets[*dataset]->space.indexOfKey(key.get<std::string>()) : std::nullopt;
            if (!index)
                throw Error(fmt::format("{}:{}: config {} is not in the space of {}.", path, line, key.dump(),
                                        datasets[*dataset]->path.string()));
            configs.push_back(*index);
        }
        CompareRun run = Comparison::replay(*datasets[*dataset], std::move(configs), budget);
        run.strategy = item["strategy"].get<std::string>();
        run.dataset = *dataset;
        run.seed = item.value("seed", std::uint64_t{0});
        if (item.contains("max_fevals")) {
            if (!item["max_fevals"].is_number_integer() || item["max_fevals"].get<std::int64_t>() < 1)
                throw Error(fmt::format("{}:{}: max_fevals is {}, not a positive whole number.", path, line,
                                        item["max_fevals"].dump()));
            run.budgetGiven = item["max_fevals"].get<std::int64_t>();
        }
        if (std::find(strategies.begin(), strategies.end(), run.strategy) == strategies.end())
            strategies.push_back(run.strategy);
        runs.push_back(std::move(run));
    }
    if (runs.empty())
        throw Error(fmt::format("The trace file {} holds no runs.", path));
    return runs;
}

void runScore(const ScoreOptions& o) {
    CompareSettings settings;
    settings.budgets = parseBudgets(o.budgets);
    std::sort(settings.budgets.begin(), settings.budgets.end());
    settings.mode = parseSpaceMode(o.space);
    std::vector<std::string> inputs = o.datasets;
    inputs.push_back(o.trace);
    const std::unique_ptr<OutputFile> json = openOutput(o.json, "JSON file", inputs);
    std::vector<std::shared_ptr<const Dataset>> datasets;
    for (const std::string& path : o.datasets)
        datasets.push_back(loadDataset(path));
    std::vector<CompareRun> runs = readTrace(o.trace, datasets, settings.budgets.back(), settings.strategies);
    // Seeds per strategy and dataset, counting the runs with the largest given budget (a peer's per-budget
    // runs are extra runs of the same seeds).
    std::map<std::pair<std::string, std::size_t>, std::map<std::int64_t, int>> perBudget;
    for (const CompareRun& run : runs)
        perBudget[{run.strategy, run.dataset}][run.budgetGiven]++;
    settings.repeats = 0;
    std::map<std::string, std::set<std::int64_t>> extraBudgets;
    for (const auto& [key, counts] : perBudget) {
        settings.repeats = std::max(settings.repeats, counts.rbegin()->second);
        for (auto it = counts.begin(); it != std::prev(counts.end()); ++it)
            extraBudgets[key.first].insert(it->first);
    }
    for (const auto& [strategy, given] : extraBudgets)
        for (std::int64_t budget : given)
            if (std::find(settings.budgets.begin(), settings.budgets.end(), budget) == settings.budgets.end())
                fmt::print(stderr,
                           "{}: the runs of {} started with max_fevals {} are not scored: {} is not one of "
                           "the budgets.\n",
                           o.trace, strategy, budget, budget);
            else
                fmt::print("{}: column {} uses its runs started with max_fevals {} (one run per budget)\n",
                           strategy, budget, budget);
    CompareResult result = Comparison::score(datasets, settings, std::move(runs));
    if (json)
        writeJson(*json, result, settings, datasets);
    printTable(result, settings, datasets);
}

} // namespace

void addScoreCommand(CLI::App& app) {
    auto o = std::make_shared<ScoreOptions>();
    CLI::App* cmd = app.add_subcommand("score", "Score runs from a trace file (ours or a peer tuner's)");
    cmd->add_option("--dataset", o->datasets, "Replay datasets the trace refers to (repeatable)")->required();
    cmd->add_option("--trace", o->trace, "Trace file: one JSON line per run")->required();
    cmd->add_option("--budgets", o->budgets, "Comma-separated evaluation budgets")->capture_default_str();
    cmd->add_option("--space", o->space, "Space mode the runs used: product or constrained")
        ->capture_default_str();
    cmd->add_option("--json", o->json, "Write the scores as JSON to this file (- for stdout)");
    cmd->callback([o] { runScore(*o); });
}

} // namespace ts::cli
