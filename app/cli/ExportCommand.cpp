#include "Commands.h"

#include "deploy/CppSource.h"
#include "deploy/DeploymentBuilder.h"
#include "deploy/DeploymentHeader.h"
#include "hardware/DeviceFingerprint.h"
#include "store/RecordStore.h"
#include "formats/TrialExporter.h"
#include "store/WorkloadRecord.h"
#include "util/Error.h"
#include "util/OutputFile.h"

#include <cstdio>
#include <fmt/format.h>
#include <optional>
#include <set>

namespace ts::cli {

namespace {

struct ExportOptions {
    std::string db;
    std::int64_t session = 0;
    std::optional<std::int64_t> workload;
    std::string format;
    std::string output;
    std::string space = "tunescope_tuned";
    bool merge = false;
};

std::filesystem::path existingDb(const std::string& db) {
    std::filesystem::path path = db.empty() ? RecordStore::defaultPath() : std::filesystem::path(db);
    if (!std::filesystem::exists(path))
        throw Error(fmt::format("The records database {} does not exist.", path.string()));
    return path;
}

// Records are bound to their hardware: say so when the configs being shipped were measured elsewhere.
void warnAboutOtherHardware(const nlohmann::ordered_json& deployment) {
    const DeviceFingerprint host = DeviceFingerprint::ofHostCpu();
    std::set<std::string> others;
    std::size_t count = 0;
    for (const auto& entry : deployment["entries"]) {
        const std::string device = entry.value("device", "");
        if (device == host.name)
            continue;
        ++count;
        const std::string architecture = entry.value("architecture", "");
        others.insert(architecture.empty() ? device : fmt::format("{} ({})", device, architecture));
    }
    if (count == 0)
        return;
    std::string list;
    for (const std::string& other : others)
        list += (list.empty() ? "" : ", ") + other;
    std::fprintf(
        stderr,
        "warning: %zu of %zu entries were tuned on other hardware than this machine (%s); they hold for "
        "those devices and, less well, for their architectures.\n",
        count, deployment["entries"].size(), list.c_str());
}

// The sessions of a workload's tasks that can give an entry: those of the tasks that did not fail. The failed
// tasks are named on stderr; a workload that is not in the store, or has no task left, is an Error.
std::vector<std::int64_t> workloadSessions(const RecordStore& store, std::int64_t id) {
    const std::optional<WorkloadRecord> workload = store.workload(id);
    if (!workload)
        throw Error(fmt::format("Workload {} is not in the records database {}.", id, store.path().string()));
    std::vector<std::int64_t> sessions;
    for (const WorkloadTaskRecord& task : workload->tasks) {
        if (task.status == "failed")
            std::fprintf(stderr, "warning: task %d (\"%s\") of workload %lld failed, so it is left out: %s\n",
                         task.position + 1, task.name.c_str(), static_cast<long long>(id),
                         task.error.empty() ? "no reason was recorded." : task.error.c_str());
        else if (task.session)
            sessions.push_back(*task.session);
        else
            std::fprintf(stderr,
                         "warning: task %d (\"%s\") of workload %lld was not tuned yet, so it is left out.\n",
                         task.position + 1, task.name.c_str(), static_cast<long long>(id));
    }
    if (sessions.empty())
        throw Error(
            fmt::format("Workload {} (\"{}\") of the records database {} has no task with a session to "
                        "export: each failed or was not tuned yet.",
                        id, workload->name, store.path().string()));
    return sessions;
}

void runExport(const ExportOptions& o) {
    static const std::set<std::string> formats{"deploy", "header", "kt-cache", "t4", "jsonl", "csv"};
    if (!formats.count(o.format))
        throw Error(
            fmt::format("--format \"{}\" is not an export format (use deploy, header, kt-cache, t4, jsonl "
                        "or csv).",
                        o.format));
    if (o.format == "header")
        CppSource::checkNamespace(o.space);
    if (o.workload && o.session > 0)
        throw Error("--workload and --session both choose what to export: give one of them.");
    if (o.merge && (o.format != "kt-cache" || o.session > 0 || o.workload))
        throw Error("--merge makes one Kernel Tuner cache of every session: use it with --format kt-cache, "
                    "without --session or --workload.");
    if (o.workload && o.format != "deploy" && o.format != "header")
        throw Error(fmt::format("--workload exports a deployment: use --format deploy or header, not \"{}\".",
                                o.format));
    // The output is checked first: a refused target costs no work, and the database is never replaced.
    OutputFile output(o.output, "export file");
    RecordStore store(existingDb(o.db), DatabaseAccess::ReadOnly);
    output.protect(store.path());
    const std::optional<std::int64_t> session = o.session > 0 ? std::optional(o.session) : std::nullopt;
    std::string text;
    if (o.format == "deploy" || o.format == "header") {
        DeploymentBuilder builder(store);
        const nlohmann::ordered_json deployment =
            o.workload ? builder.build(workloadSessions(store, *o.workload)) : builder.build(session);
        for (const std::string& skipped : builder.skipped())
            std::fprintf(stderr, "warning: %s has no successful trial; it is left out.\n", skipped.c_str());
        for (const std::string& warning : builder.warnings())
            std::fprintf(stderr, "warning: %s\n", warning.c_str());
        if (deployment["entries"].empty() && o.workload)
            throw Error(
                fmt::format("Workload {} of the records database {} has no successful trial to export.",
                            *o.workload, store.path().string()));
        if (deployment["entries"].empty())
            throw Error(fmt::format("The records database {} has no successful trial to export.",
                                    store.path().string()));
        warnAboutOtherHardware(deployment);
        text = o.format == "deploy" ? deployment.dump(2) + "\n"
                                    : DeploymentHeader::generate(deployment, o.space);
    } else {
        // The core's sentence names the problem; the flag that solves it is the CLI's to name.
        const bool oneSession = o.format == "kt-cache" || o.format == "t4";
        if (oneSession && !session && !o.merge && store.sessions().size() != 1)
            throw Error(
                fmt::format("--format {} holds one session and {} holds {}: choose one with --session.",
                            o.format, store.path().string(), store.sessions().size()));
        const TrialExporter exporter(store);
        text = o.merge                  ? exporter.mergedKernelTunerCache()
               : o.format == "kt-cache" ? exporter.kernelTunerCache(session)
               : o.format == "t4"       ? exporter.t4(session)
               : o.format == "jsonl"    ? exporter.jsonLines(session)
                                        : exporter.csv(session);
    }
    output.write(text);
    output.commit();
}

} // namespace

void addExportCommand(CLI::App& app) {
    auto o = std::make_shared<ExportOptions>();
    CLI::App* cmd = app.add_subcommand("export", "Export records: deployment JSON, C++ header, or trials");
    cmd->add_option("--db", o->db, "Records database (default: $XDG_DATA_HOME/tunescope/records.db)");
    cmd->add_option("--session", o->session, "Only this session (default: all; kt-cache and t4 need one)");
    cmd->add_option("--workload", o->workload,
                    "Only the sessions of this workload's tasks (deploy and header; see `workload list`)");
    cmd->add_option("--format", o->format, "deploy, header, kt-cache, t4, jsonl or csv")->required();
    cmd->add_option("-o,--output", o->output, "Output file (- for stdout)")->required();
    cmd->add_flag("--merge", o->merge,
                  "kt-cache: every session (one kernel, size and device) as one dataset; a config measured "
                  "twice keeps its first trial");
    cmd->add_option("--namespace", o->space, "C++ namespace of the generated header")->capture_default_str();
    cmd->callback([o] { runExport(*o); });
}

} // namespace ts::cli
