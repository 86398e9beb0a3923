#include "CliSupport.h"
#include "Commands.h"
#include "CompareReport.h"

#include "analysis/Comparison.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ts::cli {

namespace {

struct CompareOptions {
    std::vector<std::string> datasets;
    std::string strategies = "random_sample";
    std::string budgets = "25,50,100,200,400";
    std::vector<std::string> options; // strategy.name=value
    int repeats = 10;
    std::uint64_t seed = 0;
    std::string space = "product";
    std::string trace;
    std::string json;
    unsigned threads = 0;
    bool transfer = false;
    std::vector<std::string> priors;
};

std::map<std::string, std::map<std::string, std::string>>
parseStrategyOptions(const std::vector<std::string>& items) {
    std::map<std::string, std::map<std::string, std::string>> result;
    for (const auto& [key, value] : parseKeyValues(items, "--option")) {
        auto dot = key.find('.');
        if (dot == std::string::npos || dot == 0)
            throw Error(fmt::format("--option \"{}\" must name its strategy: strategy.option=value.", key));
        result[key.substr(0, dot)][key.substr(dot + 1)] = value;
    }
    return result;
}

void writeTrace(OutputFile& output, const CompareResult& result,
                const std::vector<std::shared_ptr<const Dataset>>& datasets, const std::string& suffix) {
    for (const CompareRun& run : result.runs) {
        nlohmann::json configs = nlohmann::json::array();
        for (SearchSpace::Index index : run.configs)
            configs.push_back(datasets[run.dataset]->space.key(index));
        // Warm-started runs (of strategies that use a prior) are named apart, so a trace mixing them with
        // cold starts never averages the two.
        nlohmann::json line{{"strategy", StrategyRegistry::builtin().create(run.strategy)->usesPrior()
                                             ? run.strategy + suffix
                                             : run.strategy},
                            {"dataset", datasets[run.dataset]->path.string()},
                            {"seed", run.seed},
                            {"configs", configs}};
        output.write(line.dump() + '\n');
    }
    output.commit();
}

void runCompare(const CompareOptions& o) {
    CompareSettings settings;
    settings.strategies = splitList(o.strategies);
    if (settings.strategies.empty())
        throw Error("--strategies is empty.");
    settings.budgets = parseBudgets(o.budgets);
    std::sort(settings.budgets.begin(), settings.budgets.end());
    settings.options = parseStrategyOptions(o.options);
    if (o.repeats <= 0)
        throw Error(fmt::format("--repeats {} is not a positive number of runs.", o.repeats));
    settings.repeats = o.repeats;
    settings.seed = o.seed;
    settings.mode = parseSpaceMode(o.space);
    settings.threads = o.threads;
    settings.transfer = o.transfer;
    for (const std::string& path : o.priors)
        settings.priors.push_back(loadDataset(path));
    // Opened before the run, so a target that cannot be written is refused before minutes of work.
    const std::unique_ptr<OutputFile> trace = openOutput(o.trace, "trace file", o.datasets);
    const std::unique_ptr<OutputFile> json = openOutput(o.json, "JSON file", o.datasets);
    std::vector<std::shared_ptr<const Dataset>> datasets;
    for (const std::string& path : o.datasets)
        datasets.push_back(loadDataset(path));

    Comparison comparison(datasets, settings);
    ProgressLine line;
    CompareResult result = comparison.run([&line](std::size_t done, std::size_t total) {
        line.update(fmt::format("[{}/{}] runs", done, total), done == total);
    });
    line.finish();
    if (trace)
        writeTrace(*trace, result, datasets, o.transfer ? "+transfer" : o.priors.empty() ? "" : "+prior");
    if (json)
        writeJson(*json, result, settings, datasets);
    printTable(result, settings, datasets);
}

} // namespace

void addCompareCommand(CLI::App& app) {
    auto o = std::make_shared<CompareOptions>();
    CLI::App* cmd = app.add_subcommand("compare", "Compare strategies on replay datasets over many seeds");
    cmd->add_option("--dataset", o->datasets, "Replay datasets (repeatable)")->required();
    cmd->add_option("--strategies", o->strategies, "Comma-separated strategy names")->capture_default_str();
    cmd->add_option("--budgets", o->budgets, "Comma-separated evaluation budgets")->capture_default_str();
    cmd->add_option("--option", o->options, "strategy.option=value (repeatable)");
    cmd->add_option("--repeats", o->repeats, "Seeds per strategy and dataset")->capture_default_str();
    cmd->add_option("--seed", o->seed, "First seed")->capture_default_str();
    cmd->add_option("--space", o->space, "Space mode: product or constrained")->capture_default_str();
    cmd->add_option("--trace", o->trace,
                    "Write one JSON line per run with its evaluated configs to this file (- for stdout)");
    cmd->add_option("--json", o->json, "Write the scores as JSON to this file (- for stdout)");
    cmd->add_option("--threads", o->threads, "Worker threads (default: all cores)");
    cmd->add_flag(
        "--transfer", o->transfer,
        "Warm starts: strategies that use a prior (xgb) start from the other datasets of the same kernel "
        "(leave one device out)");
    cmd->add_option("--prior", o->priors,
                    "Warm starts from this replay dataset instead (repeatable): strategies that use a prior "
                    "start from it on every dataset with its parameter names, whatever its kernel (a chosen "
                    "or deliberately misleading source); the trace names such runs xgb+prior")
        ->excludes("--transfer");
    cmd->callback([o] { runCompare(*o); });
}

} // namespace ts::cli
