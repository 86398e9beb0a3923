#include "CliSupport.h"
#include "Commands.h"

#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpecReader.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>

namespace ts::cli {

namespace {

struct KernelsOptions {
    std::string name;
    std::string specFile;
    std::string size;
    bool json = false;
};

std::string configText(const KernelVariant& variant, const Config& config) {
    std::string text;
    for (std::size_t i = 0; i < config.size(); ++i)
        text += fmt::format("{}{}={}", i ? ", " : "", variant.parameters[i].name, toString(config[i]));
    return text;
}

// The space of one variant at a size; a size at which no config is valid is reported, not fatal, when
// listing.
struct VariantSummary {
    std::string backend;
    std::uint64_t product = 0;
    std::optional<std::uint64_t> valid;
    bool defaultValid = false;
    std::string problem; // why the space is empty, when it is
};

VariantSummary summarise(const KernelSpec& spec, const KernelVariant& variant, const ProblemSize& size) {
    VariantSummary summary;
    summary.backend = variant.backend;
    summary.product = 1;
    for (const auto& parameter : variant.parameters)
        summary.product *= parameter.values.size();
    try {
        const KernelSpace space(spec, variant.backend, size);
        summary.valid = space.space().validCount();
        summary.defaultValid = space.defaultIndex().has_value();
    } catch (const Error& e) {
        summary.problem = e.what();
    }
    return summary;
}

nlohmann::json toJson(const KernelSpec& spec, const ProblemSize& size) {
    nlohmann::json problem = nlohmann::json::array();
    for (std::size_t i = 0; i < spec.problem.size(); ++i)
        problem.push_back({{"name", spec.problem[i].name}, {"default", spec.problem[i].defaultValue}});
    nlohmann::json variants = nlohmann::json::object();
    for (const auto& [backend, variant] : spec.variants) {
        const VariantSummary summary = summarise(spec, variant, size);
        nlohmann::json parameters = nlohmann::json::array();
        for (std::size_t i = 0; i < variant.parameters.size(); ++i) {
            nlohmann::json values = nlohmann::json::array();
            for (const auto& value : variant.parameters[i].values)
                std::visit([&](const auto& v) { values.push_back(v); }, value);
            nlohmann::json def;
            std::visit([&](const auto& v) { def = v; }, variant.defaults[i]);
            parameters.push_back(
                {{"name", variant.parameters[i].name}, {"values", values}, {"default", def}});
        }
        variants[backend] = {{"source", variant.source.string()},
                             {"parameters", parameters},
                             {"constraints", variant.constraints},
                             {"product_size", summary.product},
                             {"valid", summary.valid ? nlohmann::json(*summary.valid) : nlohmann::json()},
                             {"default_valid", summary.defaultValid}};
    }
    nlohmann::json out{
        {"name", spec.name},  {"description", spec.description},       {"spec", spec.specFile.string()},
        {"problem", problem}, {"size", formatProblemSize(spec, size)}, {"variants", variants}};
    if (const auto flops = kernelFlops(spec, size))
        out["flops"] = *flops;
    if (const auto bytes = kernelBytes(spec, size))
        out["bytes"] = *bytes;
    return out;
}

void printBrief(const KernelSpec& spec) {
    const ProblemSize size = spec.defaultSize();
    std::string backends;
    for (const auto& [backend, variant] : spec.variants)
        backends += (backends.empty() ? "" : ", ") + backend;
    fmt::print("{}  [{}]\n    {}\n", spec.name, backends, spec.description);
    fmt::print("    problem   {} (defaults)\n", formatProblemSize(spec, size));
    for (const auto& [backend, variant] : spec.variants) {
        const VariantSummary summary = summarise(spec, variant, size);
        if (summary.valid)
            fmt::print("    {:<9} {} parameters, product {}, valid {}\n", backend, variant.parameters.size(),
                       summary.product, *summary.valid);
        else
            fmt::print("    {:<9} {} parameters, product {}, {}\n", backend, variant.parameters.size(),
                       summary.product, summary.problem);
    }
}

void printDetail(const KernelSpec& spec, const ProblemSize& size) {
    fmt::print("name          {}\n", spec.name);
    fmt::print("description   {}\n", spec.description);
    fmt::print("spec          {}\n", spec.specFile.string());
    fmt::print("problem       {}\n", formatProblemSize(spec, size));
    if (const auto flops = kernelFlops(spec, size))
        fmt::print("flops         {:.6g}  ({})\n", *flops, spec.flops);
    if (const auto bytes = kernelBytes(spec, size))
        fmt::print("bytes         {:.6g}  ({})\n", *bytes, spec.bytes);
    for (const auto& argument : spec.arguments)
        fmt::print("argument      {} [{} = {}]{}\n", argument.name, argument.count,
                   argumentCount(spec, argument, size), argument.output ? " output" : "");
    fmt::print("tolerance     relative {:g}, absolute {:g}\n", spec.tolerance.relative,
               spec.tolerance.absolute);
    fmt::print("reference     {}\n", spec.reference.source.string());
    for (const auto& [backend, variant] : spec.variants) {
        const VariantSummary summary = summarise(spec, variant, size);
        fmt::print("variant {}    {} (entry {})\n", backend, variant.source.string(), variant.entry);
        for (std::size_t i = 0; i < variant.parameters.size(); ++i) {
            std::string values;
            for (const auto& value : variant.parameters[i].values)
                values += (values.empty() ? "" : ", ") + toString(value);
            fmt::print("  {:<15} [{}]  default {}\n", variant.parameters[i].name, values,
                       toString(variant.defaults[i]));
        }
        for (const auto& constraint : variant.constraints)
            fmt::print("  constraint      {}\n", constraint);
        fmt::print("  product         {}\n", summary.product);
        if (summary.valid)
            fmt::print("  valid           {} at {}\n", *summary.valid, formatProblemSize(spec, size));
        else
            fmt::print("  valid           none: {}\n", summary.problem);
        fmt::print("  default         {}{}\n", configText(variant, variant.defaults),
                   summary.defaultValid ? "" : " (not valid at this size)");
    }
}

void runKernels(const KernelsOptions& options) {
    if (!options.specFile.empty() && !options.name.empty())
        throw Error("Give either a kernel name or --kernel-spec, not both.");
    std::optional<KernelSpec> single;
    std::optional<KernelCatalog> catalog;
    if (!options.specFile.empty()) {
        single = readKernelSpec(options.specFile);
    } else {
        catalog.emplace();
        for (const auto& problem : catalog->problems())
            std::fprintf(stderr, "tunescope-cli: warning: %s\n", problem.c_str());
        if (!options.name.empty())
            single = catalog->find(options.name);
    }
    if (!options.size.empty() && !single)
        throw Error("--size needs one kernel (a name or --kernel-spec).");

    if (single) {
        const ProblemSize size =
            options.size.empty() ? single->defaultSize() : parseProblemSize(*single, options.size);
        if (options.json)
            fmt::print("{}\n", toJson(*single, size).dump(2));
        else
            printDetail(*single, size);
        return;
    }
    if (options.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& spec : catalog->all())
            out.push_back(toJson(spec, spec.defaultSize()));
        fmt::print("{}\n", out.dump(2));
        return;
    }
    if (catalog->all().empty())
        fmt::print("No kernels found.\n");
    for (const auto& spec : catalog->all())
        printBrief(spec);
}

} // namespace

void addKernelsCommand(CLI::App& app) {
    auto options = std::make_shared<KernelsOptions>();
    CLI::App* cmd = app.add_subcommand(
        "kernels", "List the kernels (kernels/, $TUNESCOPE_KERNEL_PATH, the user data folder) or show one");
    cmd->add_option("name", options->name, "Show this kernel in detail");
    cmd->add_option("--kernel-spec", options->specFile, "Show the kernel defined by this kernel.json");
    cmd->add_option("--size", options->size,
                    "Problem size for the detail view: all values (1024,1024,1024) or some by name (M=512)");
    cmd->add_flag("--json", options->json, "Machine-readable output");
    cmd->callback([options] { runKernels(*options); });
}

} // namespace ts::cli
