#include "CliSupport.h"
#include "Commands.h"
#include "ProblemNaming.h"
#include "RecordedDevice.h"

#include "deploy/DeploymentBuilder.h"
#include "hardware/DeviceFingerprint.h"
#include "store/RecordStore.h"
#include "runtime/tunescope/runtime.h"
#include "util/Error.h"

#include <cstdio>
#include <fmt/format.h>
#include <set>

namespace ts::cli {

namespace {

struct BestOptions {
    std::string db;
    std::string kernel;
    std::string size;
    std::string device;
    std::string architecture;
    bool json = false;
};

// Without --size: the one size the kernel was tuned at, or an error listing them.
std::vector<std::int64_t> onlyShape(const tunescope::Deployment& deployment, const std::string& kernel,
                                    const ProblemNaming& naming) {
    std::set<std::vector<std::int64_t>> shapes;
    for (const tunescope::Entry& entry : deployment.entries())
        if (entry.kernel == kernel)
            shapes.insert(entry.shape);
    if (shapes.size() == 1)
        return *shapes.begin();
    std::string list;
    for (const auto& shape : shapes)
        list += (list.empty() ? "" : ", ") + naming.describeShape(shape);
    throw Error(
        fmt::format("--size is needed: kernel \"{}\" was tuned at several sizes ({}).", kernel, list));
}

// Why no record can answer a size whose number of values no recorded size of the kernel has (so that the
// answer does not fall silently to the kernel's default); empty when some recorded size has its rank.
std::string rankProblem(const ProblemNaming& naming, const std::string& kernel, const std::string& text,
                        const std::vector<std::int64_t>& shape) {
    if (naming.ranks().empty() || naming.ranks().count(shape.size()))
        return {};
    const std::size_t rank = *naming.ranks().begin();
    std::string expected = naming.ranks().size() == 1
                               ? fmt::format("{} {}", rank, rank == 1 ? "value" : "values")
                               : fmt::format("{} values", fmt::join(naming.ranks(), " or "));
    if (naming.named())
        expected += fmt::format(" ({})", naming.names());
    return fmt::format("--size \"{}\" has {} {}, but kernel \"{}\" is recorded at sizes of {}: no record can "
                       "match it",
                       text, shape.size(), shape.size() == 1 ? "value" : "values", kernel, expected);
}

// A device no record of the kernel was measured on, and the ones there are (the answer still follows the
// lookup rules: another device of the same architecture, else the default); empty for a recorded device.
std::string deviceProblem(const tunescope::Deployment& deployment, const std::string& kernel,
                          const std::string& given, const std::string& device) {
    std::set<std::string> devices;
    for (const tunescope::Entry& entry : deployment.entries())
        if (entry.kernel == kernel)
            devices.insert(entry.device);
    if (devices.count(device))
        return {};
    std::string known;
    for (const std::string& name : devices)
        known += fmt::format("{}{}", known.empty() ? "" : ", ",
                             name.empty() ? "a device without a name" : fmt::format("\"{}\"", name));
    return fmt::format(
        "no record of kernel \"{}\" was measured on --device \"{}\"; its records were measured "
        "on {}",
        kernel, given, known);
}

void runBest(const BestOptions& o) {
    const std::filesystem::path path =
        o.db.empty() ? RecordStore::defaultPath() : std::filesystem::path(o.db);
    if (!std::filesystem::exists(path))
        throw Error(fmt::format("The records database {} does not exist.", path.string()));
    RecordStore store(path, DatabaseAccess::ReadOnly);
    const tunescope::Deployment deployment =
        tunescope::Deployment::fromJson(DeploymentBuilder(store).build());
    bool known = false;
    for (const tunescope::Entry& entry : deployment.entries())
        known = known || entry.kernel == o.kernel;
    if (!known)
        throw Error(fmt::format("The records database {} has no successful trial of kernel \"{}\".",
                                path.string(), o.kernel));

    const std::vector<SessionRecord> sessions = store.sessions();
    const ProblemNaming naming(o.kernel, sessions, KernelCatalog());
    tunescope::Query query;
    query.kernel = o.kernel;
    query.shape = o.size.empty() ? onlyShape(deployment, o.kernel, naming) : naming.parse(o.size);
    std::vector<std::string> problems{rankProblem(naming, o.kernel, o.size, query.shape)};
    if (o.device.empty()) {
        const DeviceFingerprint host = DeviceFingerprint::ofHostCpu();
        query.device = host.name;
        query.architecture = o.architecture.empty() ? host.architecture : o.architecture;
    } else {
        query.device = resolveDeviceName(o.device, sessions);
        query.architecture = o.architecture;
        if (query.architecture.empty() && deployment.architectureOf(query.device).empty())
            query.architecture = DeviceFingerprint::gpuArchitecture(query.device);
        problems.push_back(deviceProblem(deployment, o.kernel, o.device, query.device));
    }
    const tunescope::Answer answer = deployment.lookup(query);
    if (!answer.found())
        throw Error(
            fmt::format("No record of kernel \"{}\" applies to size {} on {}, and the kernel has no default "
                        "config.",
                        o.kernel, naming.describeShape(query.shape), query.device));
    // Printed only with an answer: without one, the error above names the size and device alone.
    for (const std::string& problem : problems)
        if (!problem.empty())
            std::fprintf(stderr, "warning: %s.\n", problem.c_str());
    if (answer.fromOtherDevice())
        std::fprintf(stderr,
                     "warning: kernel \"%s\" was never tuned on %s; this config was tuned on %s (same "
                     "architecture %s), so expect less than its tuned performance.\n",
                     o.kernel.c_str(), query.device.c_str(), answer.entry->device.c_str(),
                     answer.entry->architecture.c_str());
    if (o.json) {
        nlohmann::ordered_json out{{"rule", tunescope::ruleName(answer.rule)},
                                   {"kernel", o.kernel},
                                   {"size", query.shape},
                                   {"device", query.device},
                                   {"config", answer.config}};
        if (answer.entry != nullptr)
            out["entry"] = answer.entry->record;
        if (answer.rule == tunescope::Rule::NearestShape)
            out["distance"] = answer.distance;
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("rule: {}\n", tunescope::ruleName(answer.rule));
    fmt::print("config: {}\n", answer.config.dump());
    if (answer.entry == nullptr) {
        fmt::print("the kernel's default config: no record applies to size {} on {}\n",
                   naming.describeShape(query.shape), query.device);
        return;
    }
    const nlohmann::ordered_json& record = answer.entry->record;
    fmt::print("time: {:.6g} ms, tuned on {}{} at size {} (session {}, {}, {} evaluations)\n",
               answer.entry->timeMs, answer.entry->device,
               answer.entry->architecture.empty() ? "" : fmt::format(" ({})", answer.entry->architecture),
               naming.describeShape(answer.entry->shape), record.value("session", std::int64_t{0}),
               record.value("strategy", ""), record.value("evaluations", std::int64_t{0}));
    if (answer.rule == tunescope::Rule::NearestShape)
        fmt::print("nearest tuned size to {} (log-space distance {:.3f})\n",
                   naming.describeShape(query.shape), answer.distance);
}

} // namespace

void addBestCommand(CLI::App& app) {
    auto o = std::make_shared<BestOptions>();
    CLI::App* cmd = app.add_subcommand(
        "best",
        "Which config to use for a kernel, size and device, from the records (and which rule answered)");
    cmd->add_option("--db", o->db, "Records database (default: $XDG_DATA_HOME/tunescope/records.db)");
    cmd->add_option("--kernel", o->kernel, "Kernel name as recorded")->required();
    cmd->add_option(
        "--size", o->size,
        "Problem size as `tune` takes it: all values in problem order (1024,1024,1024) or some by name "
        "(M=512,K=256; the others at the kernel's defaults); default: the one size tuned");
    cmd->add_option("--device", o->device,
                    "Device name as `records list` prints it (default: this machine's CPU)");
    cmd->add_option("--arch", o->architecture,
                    "Architecture of the device (sm_86, ...; default: from the records)");
    cmd->add_flag("--json", o->json, "Machine-readable answer on stdout");
    cmd->callback([o] { runBest(*o); });
}

} // namespace ts::cli
