#include "Commands.h"

#include "records/RecordStore.h"
#include "util/Error.h"

#include <fmt/format.h>

namespace ts::cli {

namespace {

struct RecordsOptions {
    std::string db;
    std::int64_t session = 0;
};

std::filesystem::path dbPath(const RecordsOptions& o) {
    std::filesystem::path path = o.db.empty() ? RecordStore::defaultPath() : std::filesystem::path(o.db);
    if (!std::filesystem::exists(path))
        throw Error(fmt::format("The records database {} does not exist.", path.string()));
    return path;
}

// The device column of the list: a GPU fingerprint up to its first ';' ("cuda: NVIDIA H200 (sm_90)");
// `records show` prints it whole.
std::string deviceColumn(const std::string& device) {
    return device.substr(0, device.find(';'));
}

void listSessions(const RecordsOptions& o) {
    RecordStore store(dbPath(o), DatabaseAccess::ReadOnly);
    fmt::print("{:>4}  {:<10} {:<16} {:<28} {:<14} {:>6} {:>7}  {}\n", "id", "status", "kernel", "device",
               "strategy", "trials", "budget", "space");
    for (const SessionRecord& s : store.sessions())
        fmt::print("{:>4}  {:<10} {:<16} {:<28} {:<14} {:>6} {:>7}  {}\n", s.id, s.status, s.kernel,
                   deviceColumn(s.device), s.strategy, store.trials(s.id).size(), s.budget, s.spaceMode);
}

void showSession(const RecordsOptions& o) {
    RecordStore store(dbPath(o), DatabaseAccess::ReadOnly);
    auto session = store.session(o.session);
    if (!session)
        throw Error(fmt::format("Session {} is not in {}.", o.session, store.path().string()));
    fmt::print("session {}: {} on {} ({}), strategy {} {}, seed {}, {} mode, budget {}, status {}\n",
               session->id, session->kernel, session->device, session->backend, session->strategy,
               session->options, session->seed, session->spaceMode, session->budget, session->status);
    fmt::print("{:>6} {:<14} {:>12} {:>8}  {}\n", "#", "status", "time ms", "cv", "config");
    for (const StoredTrial& t : store.trials(o.session))
        fmt::print("{:>6} {:<14} {:>12.6g} {:>8.4f}  {}\n", t.number + 1, t.status, t.objective, t.cv,
                   t.config);
}

} // namespace

void addRecordsCommand(CLI::App& app) {
    auto o = std::make_shared<RecordsOptions>();
    CLI::App* cmd = app.add_subcommand("records", "Browse the records database");
    cmd->add_option("--db", o->db, "Records database (default: $XDG_DATA_HOME/tunescope/records.db)");
    cmd->require_subcommand(0, 1);
    CLI::App* list = cmd->add_subcommand("list", "List sessions (the default)");
    CLI::App* show = cmd->add_subcommand("show", "Show the trials of one session");
    show->add_option("session", o->session, "Session id")->required();
    list->callback([o] { listSessions(*o); });
    show->callback([o] { showSession(*o); });
    cmd->callback([o, cmd] {
        if (cmd->get_subcommands().empty())
            listSessions(*o);
    });
}

} // namespace ts::cli
