#include "Commands.h"

#include "records/RecordStore.h"
#include "records/TrialImporter.h"

#include <fmt/format.h>

namespace ts::cli {

namespace {

struct ImportOptions {
    std::string db;
    std::string input;
    std::string format = "auto";
};

void runImport(const ImportOptions& o) {
    RecordStore store(o.db.empty() ? RecordStore::defaultPath() : std::filesystem::path(o.db));
    TrialImporter importer(store);
    const TrialImporter::Result result = importer.import(o.input, o.format);
    std::string ids;
    for (const std::int64_t id : result.sessions)
        ids += fmt::format("{}{}", ids.empty() ? "" : ", ", id);
    fmt::print("imported {} trials ({}) into {} {}: {}\n", result.trials, result.format,
               result.sessions.size() == 1 ? "session" : "sessions", store.path().string(), ids);
}

} // namespace

void addImportCommand(CLI::App& app) {
    auto o = std::make_shared<ImportOptions>();
    CLI::App* cmd = app.add_subcommand(
        "import", "Import trials: Kernel Tuner cache, T4, KTT output, or a jsonl / csv export");
    cmd->add_option("--db", o->db, "Records database (default: $XDG_DATA_HOME/tunescope/records.db)");
    cmd->add_option("input", o->input, "File to import")->required();
    cmd->add_option("--format", o->format, "auto, kt-cache, t4, ktt, jsonl or csv")->capture_default_str();
    cmd->callback([o] { runImport(*o); });
}

} // namespace ts::cli
