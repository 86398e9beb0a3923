#include "Commands.h"
#include "ProblemNaming.h"
#include "RecordedDevice.h"
#include "SharedOption.h"

#include "store/RecordStore.h"
#include "util/Error.h"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace ts::cli {

namespace {

// The most characters of one trial's log that `records show --log` prints; `export --format jsonl` has all.
constexpr std::size_t kLogLimit = 4000;

struct RecordsOptions {
    std::shared_ptr<SharedOption> db;
    std::int64_t session = 0;
    bool log = false;
};

std::filesystem::path dbPath(const RecordsOptions& o) {
    const std::string db = o.db->value();
    std::filesystem::path path = db.empty() ? RecordStore::defaultPath() : std::filesystem::path(db);
    if (!std::filesystem::exists(path))
        throw Error(fmt::format("The records database {} does not exist.", path.string()));
    return path;
}

// The fastest successful trial of a session, if any.
std::optional<StoredTrial> bestTrial(const std::vector<StoredTrial>& trials) {
    std::optional<StoredTrial> best;
    for (const StoredTrial& t : trials)
        if (t.status == "ok" && std::isfinite(t.objective) && (!best || t.objective < best->objective))
            best = t;
    return best;
}

std::string bestColumn(const std::optional<StoredTrial>& best) {
    return best ? fmt::format("{:.6g}", best->objective) : "-";
}

// "3 ok, 2 compile_failed" in the order the statuses first occur.
std::string statusCounts(const std::vector<StoredTrial>& trials) {
    std::vector<std::pair<std::string, int>> counts;
    for (const StoredTrial& t : trials) {
        auto it =
            std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == t.status; });
        if (it == counts.end())
            counts.emplace_back(t.status, 1);
        else
            ++it->second;
    }
    std::string text;
    for (const auto& [status, count] : counts)
        text += fmt::format("{}{} {}", text.empty() ? "" : ", ", count, status);
    return text.empty() ? "no trials" : text;
}

// Size text per kernel, read with the same naming `best --size` uses.
class SizeColumn {
public:
    explicit SizeColumn(const std::vector<SessionRecord>& sessions) : m_sessions(sessions) {}
    std::string operator()(const SessionRecord& s) {
        auto it = m_namings.find(s.kernel);
        if (it == m_namings.end())
            it = m_namings.emplace(s.kernel, ProblemNaming(s.kernel, m_sessions, m_catalog)).first;
        return it->second.describe(s.problem);
    }

private:
    const std::vector<SessionRecord>& m_sessions;
    KernelCatalog m_catalog;
    std::map<std::string, ProblemNaming> m_namings;
};

void listSessions(const RecordsOptions& o) {
    RecordStore store(dbPath(o), DatabaseAccess::ReadOnly);
    const std::vector<SessionRecord> sessions = store.sessions();
    SizeColumn size(sessions);
    const char* row = "{:>4}  {:<10} {:<16} {:<18} {:<28} {:<14} {:>6} {:>7} {:>12}  {}\n";
    fmt::print(fmt::runtime(row), "id", "status", "kernel", "size", "device", "strategy", "trials", "budget",
               "best ms", "space");
    for (const SessionRecord& s : sessions) {
        const std::vector<StoredTrial> trials = store.trials(s.id);
        fmt::print(fmt::runtime(row), s.id, s.status, s.kernel, size(s), recordedDeviceName(s), s.strategy,
                   trials.size(), s.budget, bestColumn(bestTrial(trials)), s.spaceMode);
    }
}

void printLog(const StoredTrial& t) {
    fmt::print("trial {} {}:\n", t.number + 1, t.status);
    if (t.log.empty()) {
        fmt::print("  (no log stored)\n");
        return;
    }
    std::string text = t.log.substr(0, kLogLimit);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    std::string indented = "  ";
    for (const char c : text)
        indented += c == '\n' ? std::string("\n  ") : std::string(1, c);
    fmt::print("{}\n", indented);
    if (t.log.size() > kLogLimit)
        fmt::print(
            "  [log cut: {} more characters of {}; `export --format jsonl --session {}` has it whole]\n",
            t.log.size() - kLogLimit, t.log.size(), t.session);
}

void showSession(const RecordsOptions& o) {
    RecordStore store(dbPath(o), DatabaseAccess::ReadOnly);
    auto session = store.session(o.session);
    if (!session)
        throw Error(fmt::format("Session {} is not in {}.", o.session, store.path().string()));
    const std::vector<StoredTrial> trials = store.trials(o.session);
    fmt::print("session {}: {} on {} ({}), strategy {} {}, seed {}, {} mode, budget {}, status {}\n",
               session->id, session->kernel, session->device, session->backend, session->strategy,
               session->options, session->seed, session->spaceMode, session->budget, session->status);
    const std::optional<StoredTrial> best = bestTrial(trials);
    fmt::print("size {}, device \"{}\", best {}, trials: {}\n", SizeColumn(store.sessions())(*session),
               recordedDeviceName(*session),
               best ? fmt::format("{:.6g} ms (trial {})", best->objective, best->number + 1)
                    : "none (no trial ok)",
               statusCounts(trials));
    fmt::print("{:>6} {:<14} {:>12} {:>8}  {}\n", "#", "status", "time ms", "cv", "config");
    for (const StoredTrial& t : trials)
        fmt::print("{:>6} {:<14} {:>12.6g} {:>8.4f}  {}\n", t.number + 1, t.status, t.objective, t.cv,
                   t.config);
    if (!o.log)
        return;
    std::size_t failed = 0;
    for (const StoredTrial& t : trials)
        if (t.status != "ok") {
            if (failed++ == 0)
                fmt::print("\nlogs of the failed trials:\n");
            printLog(t);
        }
    if (failed == 0)
        fmt::print("\nno trial failed: no log to show\n");
}

} // namespace

void addRecordsCommand(CLI::App& app) {
    auto o = std::make_shared<RecordsOptions>();
    CLI::App* cmd = app.add_subcommand("records", "Browse the records database");
    cmd->require_subcommand(0, 1);
    CLI::App* list = cmd->add_subcommand("list", "List sessions (the default)");
    CLI::App* show = cmd->add_subcommand("show", "Show the trials of one session");
    show->add_option("session", o->session, "Session id")->required();
    show->add_flag(
        "--log", o->log,
        fmt::format("Also print each failed trial's stored log (compiler error, mismatch; up to {} "
                    "characters each)",
                    kLogLimit));
    // Accepted before and after the subcommand's name, like every other command's --db.
    o->db = shareOption(*cmd, "--db", "Records database (default: $XDG_DATA_HOME/tunescope/records.db)");
    list->callback([o] { listSessions(*o); });
    show->callback([o] { showSession(*o); });
    cmd->callback([o, cmd] {
        if (cmd->get_subcommands().empty())
            listSessions(*o);
    });
}

} // namespace ts::cli
