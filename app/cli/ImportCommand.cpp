#include "CliSupport.h"
#include "Commands.h"
#include "ProblemNaming.h"

#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "store/RecordStore.h"
#include "formats/TrialImporter.h"
#include "util/Error.h"

#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ts::cli {

namespace {

using Json = nlohmann::ordered_json;

struct ImportOptions {
    std::string db;
    std::string input;
    std::string format = "auto";
    std::string device;
    std::string size;
};

Json namedSizes(const std::vector<std::string>& names, const std::vector<std::int64_t>& values) {
    Json object = Json::object();
    for (std::size_t i = 0; i < names.size() && i < values.size(); ++i)
        object[names[i]] = values[i];
    return object;
}

// `--size` read with the grammar of `tune` and `best`, named the way the records (or else the catalog's spec)
// name this kernel's sizes, so that the imported sessions group with the kernel's other sessions. A kernel
// known to neither keeps the sizes as given: a list of numbers, or an object of the names given.
std::string problemJson(const std::string& text, const std::string& kernel,
                        const std::vector<SessionRecord>& sessions, const KernelCatalog& catalog) {
    const ProblemNaming naming(kernel, sessions, catalog);
    if (naming.named()) {
        const std::vector<std::int64_t> shape = naming.parse(text);
        if (shape.size() == naming.storedNames().size())
            return namedSizes(naming.storedNames(), shape).dump();
        return Json(shape).dump();
    }
    for (const KernelSpec& spec : catalog.all())
        if (spec.name == kernel) {
            std::vector<std::string> names;
            for (const ProblemParameter& p : spec.problem)
                names.push_back(p.name);
            return namedSizes(names, parseProblemSize(spec, text)).dump();
        }
    if (text.find('=') == std::string::npos)
        return Json(ProblemNaming::parsePositional(kernel, text)).dump();
    // Names only the text knows: every value must be given (there are no defaults to take).
    KernelSpec given;
    given.name = kernel;
    std::vector<std::string> names;
    for (const auto& [name, value] : parseKeyValues(splitList(text), "--size")) {
        names.push_back(name);
        given.problem.push_back({name, 0});
    }
    return namedSizes(names, parseProblemSize(given, text)).dump();
}

// The imported sessions, and on stderr what they lack for a lookup to find them and the flags that supply it.
void report(const TrialImporter::Result& result, const RecordStore& store, const ImportOptions& o) {
    std::string ids;
    for (const std::int64_t id : result.sessions)
        ids += fmt::format("{}{}", ids.empty() ? "" : ", ", id);
    fmt::print("imported {} trials ({}) into {} {}: {}\n", result.trials, result.format,
               result.sessions.size() == 1 ? "session" : "sessions", store.path().string(), ids);
    if (result.missing.empty())
        return;
    std::string what;
    std::string flags;
    for (const std::string& item : result.missing) {
        const bool device = item == "a device name";
        what += fmt::format("{}{}", what.empty() ? "" : " and ",
                            device ? "no device name"
                                   : "no problem size (none, or only a placeholder such as [1])");
        flags += fmt::format("{}{}", flags.empty() ? "" : " ", device ? "--device NAME" : "--size S");
    }
    std::fprintf(
        stderr,
        "warning: %s gives %s, so `best` and exported deployments cannot tell these trials apart by %s; "
        "import it with %s to supply %s.\n",
        o.input.c_str(), what.c_str(),
        result.missing.size() == 2                  ? "device and size"
        : result.missing.front() == "a device name" ? "device"
                                                    : "size",
        flags.c_str(), result.missing.size() == 2 ? "them" : "it");
}

void runImport(const ImportOptions& o) {
    RecordStore store(o.db.empty() ? RecordStore::defaultPath() : std::filesystem::path(o.db));
    const KernelCatalog catalog;
    const std::vector<SessionRecord> sessions =
        o.size.empty() ? std::vector<SessionRecord>() : store.sessions();
    TrialImporter::Supplied supplied;
    supplied.device = o.device;
    if (!o.size.empty())
        supplied.problem = [&o, &sessions, &catalog](const std::string& kernel) {
            return problemJson(o.size, kernel, sessions, catalog);
        };
    TrialImporter importer(store, supplied);
    report(importer.import(o.input, o.format), store, o);
}

} // namespace

void addImportCommand(CLI::App& app) {
    auto o = std::make_shared<ImportOptions>();
    CLI::App* cmd = app.add_subcommand(
        "import", "Import trials: Kernel Tuner cache, T4, KTT output, or a jsonl / csv export");
    cmd->add_option("--db", o->db, "Records database (default: $XDG_DATA_HOME/tunescope/records.db)");
    cmd->add_option("input", o->input, "File to import")->required();
    cmd->add_option("--format", o->format, "auto, kt-cache, t4, ktt, jsonl or csv")->capture_default_str();
    cmd->add_option("--device", o->device,
                    "Device the trials were measured on, as `best --device` names it (replaces the file's)");
    cmd->add_option(
        "--size", o->size,
        "Problem size the trials were measured at, as `tune --size` takes it (replaces the file's)");
    cmd->callback([o] { runImport(*o); });
}

} // namespace ts::cli
