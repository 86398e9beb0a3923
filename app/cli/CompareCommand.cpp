#include "CliSupport.h"
#include "Commands.h"

#include "analysis/Comparison.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <fstream>
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
};

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ','))
        if (!item.empty())
            items.push_back(item);
    return items;
}

std::vector<std::int64_t> parseBudgets(const std::string& text) {
    std::vector<std::int64_t> budgets;
    for (const std::string& item : splitList(text)) {
        std::int64_t value = 0;
        try {
            std::size_t used = 0;
            value = std::stoll(item, &used);
            if (used != item.size())
                value = 0;
        } catch (const std::exception&) {
        }
        if (value <= 0)
            throw Error(fmt::format("--budgets item \"{}\" is not a positive number of evaluations.", item));
        budgets.push_back(value);
    }
    if (budgets.empty())
        throw Error("--budgets is empty.");
    return budgets;
}

std::map<std::string, std::map<std::string, std::string>> parseStrategyOptions(const std::vector<std::string>& items) {
    std::map<std::string, std::map<std::string, std::string>> result;
    for (const auto& [key, value] : parseKeyValues(items, "--option")) {
        auto dot = key.find('.');
        if (dot == std::string::npos || dot == 0)
            throw Error(fmt::format("--option \"{}\" must name its strategy: strategy.option=value.", key));
        result[key.substr(0, dot)][key.substr(dot + 1)] = value;
    }
    return result;
}

void writeTrace(const std::string& path, const CompareResult& result,
                const std::vector<std::shared_ptr<const Dataset>>& datasets) {
    std::ofstream out(path);
    if (!out)
        throw Error(fmt::format("Cannot write the trace file {}.", path));
    for (const CompareRun& run : result.runs) {
        nlohmann::json configs = nlohmann::json::array();
        for (SearchSpace::Index index : run.configs)
            configs.push_back(datasets[run.dataset]->space.key(index));
        nlohmann::json line{{"strategy", run.strategy},
                            {"dataset", datasets[run.dataset]->path.string()},
                            {"seed", run.seed},
                            {"configs", configs}};
        out << line.dump() << '\n';
    }
    if (!out)
        throw Error(fmt::format("Writing the trace file {} failed (disk full?).", path));
}

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
        out["datasets"].push_back(entry);
    }
    for (const auto& [strategy, mean] : result.meanFraction)
        out["strategies"][strategy] = {{"mean_fraction", mean}, {"score", result.score.at(strategy)}};
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
    auto row = [&](const std::string& name, const std::vector<double>& values, const std::string& tail) {
        fmt::print("{:<28}", name);
        for (double v : values)
            fmt::print("{:>8.3f}", v);
        fmt::print("{}\n", tail);
    };
    for (std::size_t d = 0; d < datasets.size(); ++d) {
        header(fmt::format("{} / {}", datasets[d]->kernelName, datasets[d]->deviceName));
        for (const auto& [strategy, perDataset] : result.fraction)
            row(strategy, perDataset[d], "");
        row("(random, exact expectation)", result.randomExpectation[d], "");
    }
    header(fmt::format("mean over {} dataset(s)", datasets.size()));
    for (const auto& [strategy, mean] : result.meanFraction)
        row(strategy, mean, fmt::format("   score {:+.3f}", result.score.at(strategy)));
    fmt::print("\nfraction of optimum at each budget (mean of {} seeds), {} mode; score: methodology score "
               "vs random sampling (0 = random, 1 = optimum at once)\n",
               settings.repeats, toString(settings.mode));
    fmt::print("{} runs in {:.2f} s\n", result.runs.size(), result.seconds);
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
    std::vector<std::shared_ptr<const Dataset>> datasets;
    for (const std::string& path : o.datasets)
        datasets.push_back(loadDataset(path));

    Comparison comparison(datasets, settings);
    ProgressLine line;
    CompareResult result = comparison.run([&line](std::size_t done, std::size_t total) {
        line.update(fmt::format("[{}/{}] runs", done, total), done == total);
    });
    line.finish();
    printTable(result, settings, datasets);
    if (!o.trace.empty())
        writeTrace(o.trace, result, datasets);
    if (!o.json.empty()) {
        std::ofstream out(o.json);
        out << toJson(result, settings, datasets).dump(2) << '\n';
        if (!out)
            throw Error(fmt::format("Cannot write the JSON file {}.", o.json));
    }
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
    cmd->add_option("--trace", o->trace, "Write one JSON line per run with its evaluated configs");
    cmd->add_option("--json", o->json, "Write the scores as JSON to this file");
    cmd->add_option("--threads", o->threads, "Worker threads (default: all cores)");
    cmd->callback([o] { runCompare(*o); });
}

} // namespace ts::cli
