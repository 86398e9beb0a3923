#include "CliSupport.h"
#include "Commands.h"
#include "util/BoundedJson.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ts::cli {

namespace {

struct InfoOptions {
    std::string dataset;
    bool json = false;
};

void runInfo(const InfoOptions& options) {
    auto dataset = loadDataset(options.dataset);
    const SearchSpace& space = dataset->space;
    auto optimum = dataset->optimum();
    auto median = dataset->medianObjective();
    std::optional<SearchSpace::Index> fastest;
    for (const auto& [index, m] : dataset->entries)
        if (m.status == MeasureStatus::Ok && optimum && m.objective == *optimum &&
            (!fastest || index < *fastest))
            fastest = index;
    if (options.json) {
        nlohmann::json out{{"file", options.dataset},
                           {"format", dataset->format},
                           {"device", dataset->deviceName},
                           {"kernel", dataset->kernelName},
                           {"problem_size", parseBoundedJson(dataset->problemSize, "the problem size")},
                           {"product_size", space.productSize()},
                           {"configs_in_file", space.validCount()},
                           {"valid", dataset->okCount()},
                           {"fastest_ms", optimum ? nlohmann::json(*optimum) : nlohmann::json()},
                           {"median_ms", median ? nlohmann::json(*median) : nlohmann::json()}};
        if (fastest)
            out["fastest_config"] = space.key(*fastest);
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("file            {}\n", options.dataset);
    fmt::print("format          {}\n", dataset->format);
    fmt::print("device          {}\n", dataset->deviceName);
    fmt::print("kernel          {}\n", dataset->kernelName);
    fmt::print("problem size    {}\n", dataset->problemSize);
    fmt::print("parameters      {}\n", space.dimension());
    for (const Parameter& p : space.parameters())
        fmt::print("  {:<14}{} values ({})\n", p.name, p.values.size(), toString(p.type));
    fmt::print("product size    {}\n", space.productSize());
    fmt::print("configs in file {}\n", space.validCount());
    fmt::print("valid           {} ({} failed)\n", dataset->okCount(),
               space.validCount() - dataset->okCount());
    if (optimum) {
        fmt::print("fastest         {:.6g} ms  [{}]\n", *optimum, describeConfig(space, *fastest));
        fmt::print("median          {:.6g} ms\n", *median);
    } else {
        fmt::print("fastest         none (no config succeeded)\n");
    }
}

} // namespace

void addInfoCommand(CLI::App& app) {
    auto options = std::make_shared<InfoOptions>();
    CLI::App* cmd =
        app.add_subcommand("info", "Describe a replay dataset (Kernel Tuner cache, T4 or KTT file)");
    cmd->add_option("dataset", options->dataset, "Dataset file (.json or .json.gz)")->required();
    cmd->add_flag("--json", options->json, "Machine-readable output");
    cmd->callback([options] { runInfo(*options); });
}

} // namespace ts::cli
