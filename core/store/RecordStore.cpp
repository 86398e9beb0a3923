#include "store/RecordStore.h"

#include "space/ValueJson.h"
#include "store/SqliteConnection.h"
#include "store/SqliteStatement.h"
#include "store/SqliteTransaction.h"
#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/Statistics.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <system_error>
#include <type_traits>

namespace ts {

namespace {

constexpr const char* kCreateSchemaV1 = R"sql(
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    kernel TEXT NOT NULL,
    problem TEXT NOT NULL,
    device TEXT NOT NULL,
    backend TEXT NOT NULL,
    dataset TEXT NOT NULL,
    strategy TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    space_mode TEXT NOT NULL,
    budget INTEGER NOT NULL,
    parameters TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    status TEXT NOT NULL DEFAULT 'running'
);
CREATE TABLE trials (
    session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    config_index INTEGER NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    objective REAL,
    samples TEXT NOT NULL,
    median REAL,
    min REAL,
    mean REAL,
    stdev REAL,
    cv REAL,
    predicted REAL,
    compile_ms REAL,
    log TEXT NOT NULL,
    batch INTEGER NOT NULL,
    elapsed_s REAL,
    finished_at REAL,
    PRIMARY KEY (session, number)
);
CREATE INDEX trials_by_session ON trials(session);
CREATE INDEX trials_by_session_objective ON trials(session, objective);
)sql";

// Schema 1 -> 2: the backend's metrics per trial; the source hash, device details and resume settings per
// session. Existing rows get the defaults (no metrics, unknown hash).
constexpr const char* kUpgradeToV2 = R"sql(
ALTER TABLE trials ADD COLUMN metrics TEXT NOT NULL DEFAULT '{}';
ALTER TABLE sessions ADD COLUMN source_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN device_info TEXT NOT NULL DEFAULT '{}';
ALTER TABLE sessions ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
)sql";

// Schema 2 -> 3: workloads, each grouping the sessions of its tasks.
constexpr const char* kUpgradeToV3 = R"sql(
CREATE TABLE workloads (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    device TEXT NOT NULL,
    scheduler TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    budget INTEGER NOT NULL,
    plan TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    status TEXT NOT NULL DEFAULT 'running'
);
CREATE TABLE workload_tasks (
    workload INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    weight REAL NOT NULL,
    session INTEGER REFERENCES sessions(id),
    status TEXT NOT NULL DEFAULT 'pending',
    error TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (workload, position)
);
)sql";

// Schema 3 -> 4: what each task's strategy expected its next trial to gain after its last round (the
// gradient scheduler's forward=model estimate), so that a resumed workload schedules as it would have.
constexpr const char* kUpgradeToV4 = R"sql(
ALTER TABLE workload_tasks ADD COLUMN expected_gain REAL;
)sql";

constexpr const char* kWorkloadColumns =
    "id, name, device, scheduler, options, seed, budget, plan, tool_version, "
    "started_at, ended_at, status";

constexpr const char* kSessionColumns =
    "id, kernel, problem, device, backend, dataset, strategy, options, seed, space_mode, budget, parameters, "
    "tool_version, started_at, ended_at, status, source_hash, device_info, settings";

constexpr const char* kTrialColumns =
    "session, number, config_index, config, status, objective, samples, median, min, mean, stdev, cv, "
    "predicted, compile_ms, log, batch, elapsed_s, finished_at, metrics";

double unixNow() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// sqlite keeps 64-bit signed integers; unsigned values keep their bit pattern.
std::int64_t toStored(std::uint64_t value) {
    return std::bit_cast<std::int64_t>(value);
}
std::uint64_t fromStored(std::int64_t value) {
    return std::bit_cast<std::uint64_t>(value);
}

// sqlite stores a NaN REAL as NULL; read it back as NaN rather than 0.
double columnReal(const SqliteStatement& statement, int column) {
    return statement.columnIsNull(column) ? std::numeric_limits<double>::quiet_NaN()
                                          : statement.columnDouble(column);
}

std::string configJson(const Config& config, const std::vector<std::string>& names) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < config.size(); ++i)
        object[names[i]] = valueToJson<nlohmann::ordered_json>(config[i]);
    return object.dump();
}

// JSON has no NaN or infinity: nlohmann writes them as null, read back as NaN.
std::vector<double> samplesFromJson(const std::string& text) {
    std::vector<double> samples;
    const nlohmann::json array = parseBoundedJson(text, "a stored trial's samples");
    if (!array.is_array())
        return samples;
    for (const auto& sample : array)
        samples.push_back(sample.is_number() ? sample.get<double>()
                                             : std::numeric_limits<double>::quiet_NaN());
    return samples;
}

SessionRecord readSession(const SqliteStatement& statement) {
    SessionRecord session;
    session.id = statement.columnInt64(0);
    session.kernel = statement.columnText(1);
    session.problem = statement.columnText(2);
    session.device = statement.columnText(3);
    session.backend = statement.columnText(4);
    session.dataset = statement.columnText(5);
    session.strategy = statement.columnText(6);
    session.options = statement.columnText(7);
    session.seed = fromStored(statement.columnInt64(8));
    session.spaceMode = statement.columnText(9);
    session.budget = statement.columnInt64(10);
    session.parameters = statement.columnText(11);
    session.toolVersion = statement.columnText(12);
    session.startedAt = statement.columnDouble(13);
    session.endedAt = statement.columnOptionalDouble(14);
    session.status = statement.columnText(15);
    session.sourceHash = statement.columnText(16);
    session.deviceInfo = statement.columnText(17);
    session.settings = statement.columnText(18);
    return session;
}

std::string metricsJson(const std::map<std::string, double>& metrics) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [name, value] : metrics)
        object[name] = value;
    return object.dump();
}

// Non-numbers (a NaN written as null) are dropped: a metric is either known or absent.
std::map<std::string, double> metricsFromJson(const std::string& text) {
    std::map<std::string, double> metrics;
    const nlohmann::json object = parseBoundedJson(text, "a stored trial's metrics");
    if (!object.is_object())
        return metrics;
    for (const auto& [name, value] : object.items())
        if (value.is_number())
            metrics[name] = value.get<double>();
    return metrics;
}

} // namespace

RecordStore::RecordStore(const std::filesystem::path& path, DatabaseAccess access) : m_path(path) {
    if (access == DatabaseAccess::ReadOnly) {
        m_db = std::make_unique<SqliteConnection>(m_path, DatabaseAccess::ReadOnly);
        m_db->setBusyTimeout(kDefaultLockWait);
        if (schemaVersion() < kSchemaVersion) {
            // An older file is upgraded by a writer of its own first (refused with a sentence when the file
            // is read-only), then read as usual.
            m_db.reset();
            RecordStore upgraded(m_path);
            m_db = std::make_unique<SqliteConnection>(m_path, DatabaseAccess::ReadOnly);
            m_db->setBusyTimeout(kDefaultLockWait);
        }
        m_db->execute("PRAGMA foreign_keys=ON", "Cannot open the records database");
        migrate(); // only checks the version now
        return;
    }
    if (m_path.has_parent_path()) {
        std::error_code error;
        std::filesystem::create_directories(m_path.parent_path(), error);
        if (error)
            throw Error(
                fmt::format("Cannot create the records database {}: {}.", m_path.string(), error.message()));
    }
    m_db = std::make_unique<SqliteConnection>(m_path);
    m_db->setBusyTimeout(kDefaultLockWait);
    const char* action = "Cannot open the records database";
    // Before anything that could write (even switching the journal mode writes the header); it is the first
    // statement that reads the file, which is where a file that is not a database shows.
    checkIntegrity();
    // journal_mode cannot change inside a transaction, so it comes before the migration.
    {
        SqliteStatement journal(*m_db, "PRAGMA journal_mode=WAL", action);
        if (!journal.step() || journal.columnText(0) != "wal")
            throw Error(fmt::format("Cannot switch the records database {} to write-ahead logging.",
                                    m_path.string()));
    }
    m_db->execute("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL", action);
    migrate();
    m_insertTrial = std::make_unique<SqliteStatement>(
        *m_db,
        fmt::format("INSERT INTO trials ({}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                    "?14, ?15, ?16, ?17, ?18, ?19)",
                    kTrialColumns),
        "Cannot save a trial in the records database");
}

RecordStore::~RecordStore() = default;

void RecordStore::checkIntegrity() {
    std::string verdict;
    auto firstRow = [](void* out, int, char** values, char**) {
        *static_cast<std::string*>(out) = values[0] != nullptr ? values[0] : "";
        return 0;
    };
    const int rc = sqlite3_exec(m_db->handle(), "PRAGMA quick_check(1)", firstRow, &verdict, nullptr);
    // A write-ahead-logged file whose -shm file cannot be created: nothing could be written here either.
    if (((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY) &&
        sqlite3_db_readonly(m_db->handle(), "main") == 1)
        throw Error(
            fmt::format("The records database {} is in a read-only folder or mount, so nothing can be "
                        "recorded in it.",
                        m_path.string()));
    if ((rc & 0xff) == SQLITE_CORRUPT)
        verdict = sqlite3_errmsg(m_db->handle());
    else
        m_db->check(rc, "PRAGMA quick_check", "Cannot check the records database");
    if (verdict == "ok")
        return;
    std::replace(verdict.begin(), verdict.end(), '\n', ' ');
    throw Error(
        fmt::format("The records database {} is damaged (quick_check: {}), so nothing was written to it.",
                    m_path.string(), verdict));
}

std::int64_t RecordStore::schemaVersion() const {
    SqliteStatement query(*m_db, "PRAGMA user_version",
                          "Cannot read the schema version of the records database");
    return query.step() ? query.columnInt64(0) : 0;
}

void RecordStore::migrate() {
    // A current file is not written to at all, so readers can open a read-only file (another user's
    // records, a read-only mount) while a tuning session writes to it.
    const std::int64_t found = schemaVersion();
    if (found == kSchemaVersion)
        return;
    if (found > kSchemaVersion)
        throw Error(fmt::format("{} was written by a newer Tunescope (schema {}, this build reads up to {}).",
                                m_path.string(), found, kSchemaVersion));
    const std::string action = "Cannot prepare the schema of the records database";
    if (sqlite3_db_readonly(m_db->handle(), "main") == 1)
        throw Error(fmt::format("The records database {} is read-only and needs an upgrade to schema {}.",
                                m_path.string(), kSchemaVersion));
    SqliteTransaction transaction(*m_db, action);
    std::int64_t version = schemaVersion(); // again, under the write lock: another process may have migrated
    if (version > kSchemaVersion)
        throw Error(fmt::format("{} was written by a newer Tunescope (schema {}, this build reads up to {}).",
                                m_path.string(), version, kSchemaVersion));
    if (version == kSchemaVersion)
        return;
    if (version == 0) {
        // An unversioned file with tables of its own belongs to someone else; never write into it.
        SqliteStatement tables(*m_db, "SELECT count(*) FROM sqlite_schema", action);
        if (tables.step() && tables.columnInt64(0) > 0)
            throw Error(
                fmt::format("{} is not a Tunescope records database (it has tables but no schema version).",
                            m_path.string()));
        m_db->execute(kCreateSchemaV1, action);
        version = 1;
    }
    // Each step moves `version` up by one; a new file walks the same path as an old one.
    if (version == 1) {
        m_db->execute(kUpgradeToV2, action);
        version = 2;
    }
    if (version == 2) {
        m_db->execute(kUpgradeToV3, action);
        version = 3;
    }
    if (version == 3) {
        m_db->execute(kUpgradeToV4, action);
        version = 4;
    }
    m_db->execute(fmt::format("PRAGMA user_version={}", kSchemaVersion).c_str(), action);
    transaction.commit();
}

std::filesystem::path RecordStore::defaultPath() {
    // The XDG spec says relative paths in XDG_DATA_HOME are invalid and must be ignored.
    const char* dataHome = std::getenv("XDG_DATA_HOME");
    if (dataHome != nullptr && *dataHome != '\0' && std::filesystem::path(dataHome).is_absolute())
        return std::filesystem::path(dataHome) / "tunescope" / "records.db";
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0')
        throw Error("Cannot find the default records database: neither XDG_DATA_HOME nor HOME is set.");
    return std::filesystem::path(home) / ".local" / "share" / "tunescope" / "records.db";
}

void RecordStore::setBusyTimeout(std::chrono::milliseconds timeout) {
    m_db->setBusyTimeout(timeout);
}

void RecordStore::setLockWaitNotice(std::function<void()> notice) {
    m_db->setLockWaitNotice(std::move(notice));
}

std::int64_t RecordStore::setMaxPageCount(std::int64_t pages) {
    SqliteStatement pragma(*m_db, fmt::format("PRAGMA max_page_count={}", pages),
                           "Cannot limit the size of the records database");
    return pragma.step() ? pragma.columnInt64(0) : 0;
}

std::int64_t RecordStore::beginSession(const SessionRecord& session) {
    const std::string action = "Cannot save a new session in the records database";
    SqliteTransaction transaction(*m_db, action);
    const std::int64_t id = insertSession(session, action);
    transaction.commit();
    return id;
}

std::int64_t RecordStore::insertSession(const SessionRecord& session, const std::string& action) {
    SqliteStatement insert(
        *m_db,
        "INSERT INTO sessions (kernel, problem, device, backend, dataset, strategy, options, "
        "seed, space_mode, budget, parameters, tool_version, started_at, ended_at, status, source_hash, "
        "device_info, settings) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
        action);
    insert.bind(1, session.kernel);
    insert.bind(2, session.problem);
    insert.bind(3, session.device);
    insert.bind(4, session.backend);
    insert.bind(5, session.dataset);
    insert.bind(6, session.strategy);
    insert.bind(7, session.options);
    insert.bind(8, toStored(session.seed));
    insert.bind(9, session.spaceMode);
    insert.bind(10, session.budget);
    insert.bind(11, session.parameters);
    insert.bind(12, session.toolVersion);
    insert.bind(13, session.startedAt);
    insert.bind(14, session.endedAt);
    insert.bind(15, session.status);
    insert.bind(16, session.sourceHash);
    insert.bind(17, session.deviceInfo.empty() ? std::string("{}") : session.deviceInfo);
    insert.bind(18, session.settings.empty() ? std::string("{}") : session.settings);
    insert.run();
    return m_db->lastInsertRowId();
}

std::vector<std::int64_t> RecordStore::importSessions(const std::vector<SessionRecord>& sessions,
                                                      const std::vector<std::vector<StoredTrial>>& trials) {
    if (sessions.size() != trials.size())
        throw std::invalid_argument("RecordStore::importSessions: one trial list per session expected");
    const std::string action = "Cannot import sessions into the records database";
    SqliteTransaction transaction(*m_db, action);
    std::vector<std::int64_t> ids;
    for (std::size_t i = 0; i < sessions.size(); ++i) {
        const std::int64_t id = insertSession(sessions[i], action);
        for (StoredTrial trial : trials[i]) {
            trial.session = id;
            insertTrial(trial, action);
        }
        ids.push_back(id);
    }
    transaction.commit();
    return ids;
}

void RecordStore::insertTrial(const StoredTrial& trial, const std::string& action) {
    SqliteStatement& insert = *m_insertTrial;
    insert.reset();
    insert.setAction(action);
    insert.bind(1, trial.session);
    insert.bind(2, trial.number);
    insert.bind(3, toStored(trial.index));
    insert.bind(4, trial.config);
    insert.bind(5, trial.status);
    insert.bind(6, trial.objective);
    insert.bind(7, nlohmann::json(trial.samples).dump());
    insert.bind(8, trial.median);
    insert.bind(9, trial.min);
    insert.bind(10, trial.mean);
    insert.bind(11, trial.stdev);
    insert.bind(12, trial.cv);
    insert.bind(13, trial.predicted);
    insert.bind(14, trial.compileMs);
    insert.bind(15, trial.log);
    insert.bind(16, trial.batch);
    insert.bind(17, trial.elapsedS);
    insert.bind(18, trial.finishedAt);
    insert.bind(19, metricsJson(trial.metrics));
    insert.run();
}

void RecordStore::commit(std::int64_t session, const Trial& trial,
                         const std::vector<std::string>& parameterNames) {
    if (parameterNames.size() != trial.config.size())
        throw std::invalid_argument(
            fmt::format("RecordStore::commit: {} parameter names for a config of {} values",
                        parameterNames.size(), trial.config.size()));
    const Measurement& measurement = trial.measurement;
    const Statistics statistics = summarize(measurement.samples);
    StoredTrial stored;
    stored.session = session;
    stored.number = trial.number;
    stored.index = trial.index;
    stored.config = configJson(trial.config, parameterNames);
    stored.status = toString(measurement.status);
    stored.objective = measurement.objective;
    stored.samples = measurement.samples;
    stored.median = statistics.median;
    stored.min = statistics.min;
    stored.mean = statistics.mean;
    stored.stdev = statistics.stdev;
    stored.cv = statistics.cv;
    stored.predicted = trial.predicted;
    stored.compileMs = measurement.compileMs;
    stored.log = measurement.log;
    stored.batch = trial.batch;
    stored.elapsedS = trial.elapsedS;
    stored.finishedAt = trial.finishedAt;
    stored.metrics = measurement.metrics;
    const std::string action =
        fmt::format("Cannot save trial {} of session {} in the records database", trial.number + 1, session);
    SqliteTransaction transaction(*m_db, action);
    insertTrial(stored, action);
    transaction.commit();
}

void RecordStore::endSession(std::int64_t session, const std::string& status) {
    const std::string action = fmt::format("Cannot end session {} in the records database", session);
    SqliteTransaction transaction(*m_db, action);
    SqliteStatement update(*m_db, "UPDATE sessions SET ended_at = ?1, status = ?2 WHERE id = ?3", action);
    update.bind(1, unixNow());
    update.bind(2, status);
    update.bind(3, session);
    update.run();
    if (m_db->changes() == 0)
        throw Error(fmt::format("The records database {} has no session {}.", m_path.string(), session));
    transaction.commit();
}

void RecordStore::reopenSession(std::int64_t session) {
    const std::string action = fmt::format("Cannot reopen session {} in the records database", session);
    SqliteTransaction transaction(*m_db, action);
    SqliteStatement update(*m_db, "UPDATE sessions SET ended_at = NULL, status = 'running' WHERE id = ?1",
                           action);
    update.bind(1, session);
    update.run();
    if (m_db->changes() == 0)
        throw Error(fmt::format("The records database {} has no session {}.", m_path.string(), session));
    transaction.commit();
}

std::vector<SessionRecord> RecordStore::sessions() const {
    SqliteStatement query(*m_db, fmt::format("SELECT {} FROM sessions ORDER BY id", kSessionColumns),
                          "Cannot read the sessions of the records database");
    std::vector<SessionRecord> result;
    while (query.step())
        result.push_back(readSession(query));
    return result;
}

std::optional<SessionRecord> RecordStore::session(std::int64_t id) const {
    SqliteStatement query(*m_db, fmt::format("SELECT {} FROM sessions WHERE id = ?1", kSessionColumns),
                          fmt::format("Cannot read session {} of the records database", id));
    query.bind(1, id);
    if (!query.step())
        return std::nullopt;
    return readSession(query);
}

std::vector<StoredTrial> RecordStore::trials(std::int64_t session) const {
    SqliteStatement query(
        *m_db, fmt::format("SELECT {} FROM trials WHERE session = ?1 ORDER BY number", kTrialColumns),
        fmt::format("Cannot read the trials of session {} of the records database", session));
    query.bind(1, session);
    std::vector<StoredTrial> result;
    while (query.step()) {
        StoredTrial& trial = result.emplace_back();
        trial.session = query.columnInt64(0);
        trial.number = query.columnInt64(1);
        trial.index = fromStored(query.columnInt64(2));
        trial.config = query.columnText(3);
        trial.status = query.columnText(4);
        trial.objective = columnReal(query, 5);
        trial.samples = samplesFromJson(query.columnText(6));
        trial.median = columnReal(query, 7);
        trial.min = columnReal(query, 8);
        trial.mean = columnReal(query, 9);
        trial.stdev = columnReal(query, 10);
        trial.cv = columnReal(query, 11);
        trial.predicted = query.columnOptionalDouble(12);
        trial.compileMs = columnReal(query, 13);
        trial.log = query.columnText(14);
        trial.batch = query.columnInt64(15);
        trial.elapsedS = columnReal(query, 16);
        trial.finishedAt = columnReal(query, 17);
        trial.metrics = metricsFromJson(query.columnText(18));
    }
    return result;
}

std::int64_t RecordStore::trialCount(std::int64_t session) const {
    SqliteStatement query(
        *m_db, "SELECT count(*) FROM trials WHERE session = ?1",
        fmt::format("Cannot count the trials of session {} of the records database", session));
    query.bind(1, session);
    return query.step() ? query.columnInt64(0) : 0;
}

std::int64_t RecordStore::beginWorkload(const WorkloadRecord& workload) {
    const std::string action = "Cannot save a new workload in the records database";
    SqliteTransaction transaction(*m_db, action);
    SqliteStatement insert(*m_db,
                           "INSERT INTO workloads (name, device, scheduler, options, seed, budget, plan, "
                           "tool_version, started_at, ended_at, status) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                           action);
    insert.bind(1, workload.name);
    insert.bind(2, workload.device);
    insert.bind(3, workload.scheduler);
    insert.bind(4, workload.options.empty() ? std::string("{}") : workload.options);
    insert.bind(5, toStored(workload.seed));
    insert.bind(6, workload.budget);
    insert.bind(7, workload.plan.empty() ? std::string("{}") : workload.plan);
    insert.bind(8, workload.toolVersion);
    insert.bind(9, workload.startedAt);
    insert.bind(10, workload.endedAt);
    insert.bind(11, workload.status);
    insert.run();
    const std::int64_t id = m_db->lastInsertRowId();
    for (const WorkloadTaskRecord& task : workload.tasks) {
        SqliteStatement row(*m_db,
                            "INSERT INTO workload_tasks (workload, position, name, weight, session, status, "
                            "error, expected_gain) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                            action);
        row.bind(1, id);
        row.bind(2, static_cast<std::int64_t>(task.position));
        row.bind(3, task.name);
        row.bind(4, task.weight);
        row.bind(5, task.session);
        row.bind(6, task.status);
        row.bind(7, task.error);
        row.bind(8, task.expectedGain);
        row.run();
    }
    transaction.commit();
    return id;
}

void RecordStore::updateWorkloadTask(std::int64_t workload, const WorkloadTaskRecord& task) {
    const std::string action = fmt::format("Cannot save task {} of workload {} in the records database",
                                           task.position + 1, workload);
    SqliteTransaction transaction(*m_db, action);
    SqliteStatement update(
        *m_db,
        "UPDATE workload_tasks SET session = ?1, status = ?2, error = ?3, expected_gain = ?6 "
        "WHERE workload = ?4 AND position = ?5",
        action);
    update.bind(1, task.session);
    update.bind(2, task.status);
    update.bind(3, task.error);
    update.bind(4, workload);
    update.bind(5, static_cast<std::int64_t>(task.position));
    update.bind(6, task.expectedGain);
    update.run();
    if (m_db->changes() == 0)
        throw Error(fmt::format("The records database {} has no task {} in workload {}.", m_path.string(),
                                task.position + 1, workload));
    transaction.commit();
}

void RecordStore::setWorkloadStatus(std::int64_t workload, const std::string& status, bool ended) {
    const std::string action = fmt::format("Cannot update workload {} in the records database", workload);
    SqliteTransaction transaction(*m_db, action);
    SqliteStatement update(*m_db, "UPDATE workloads SET ended_at = ?1, status = ?2 WHERE id = ?3", action);
    update.bind(1, ended ? std::optional<double>(unixNow()) : std::nullopt);
    update.bind(2, status);
    update.bind(3, workload);
    update.run();
    if (m_db->changes() == 0)
        throw Error(fmt::format("The records database {} has no workload {}.", m_path.string(), workload));
    transaction.commit();
}

void RecordStore::endWorkload(std::int64_t workload, const std::string& status) {
    setWorkloadStatus(workload, status, true);
}

void RecordStore::reopenWorkload(std::int64_t workload) {
    setWorkloadStatus(workload, "running", false);
}

std::vector<WorkloadTaskRecord> RecordStore::workloadTasks(std::int64_t workload) const {
    SqliteStatement query(
        *m_db,
        "SELECT position, name, weight, session, status, error, expected_gain FROM workload_tasks WHERE "
        "workload = ?1 ORDER BY position",
        fmt::format("Cannot read the tasks of workload {} of the records database", workload));
    query.bind(1, workload);
    std::vector<WorkloadTaskRecord> tasks;
    while (query.step()) {
        WorkloadTaskRecord& task = tasks.emplace_back();
        task.position = static_cast<int>(query.columnInt64(0));
        task.name = query.columnText(1);
        task.weight = query.columnDouble(2);
        if (!query.columnIsNull(3))
            task.session = query.columnInt64(3);
        task.status = query.columnText(4);
        task.error = query.columnText(5);
        task.expectedGain = query.columnOptionalDouble(6);
    }
    return tasks;
}

namespace {

WorkloadRecord readWorkload(const SqliteStatement& statement) {
    WorkloadRecord workload;
    workload.id = statement.columnInt64(0);
    workload.name = statement.columnText(1);
    workload.device = statement.columnText(2);
    workload.scheduler = statement.columnText(3);
    workload.options = statement.columnText(4);
    workload.seed = fromStored(statement.columnInt64(5));
    workload.budget = statement.columnInt64(6);
    workload.plan = statement.columnText(7);
    workload.toolVersion = statement.columnText(8);
    workload.startedAt = statement.columnDouble(9);
    workload.endedAt = statement.columnOptionalDouble(10);
    workload.status = statement.columnText(11);
    return workload;
}

} // namespace

std::vector<WorkloadRecord> RecordStore::workloads() const {
    std::vector<WorkloadRecord> result;
    {
        SqliteStatement query(*m_db, fmt::format("SELECT {} FROM workloads ORDER BY id", kWorkloadColumns),
                              "Cannot read the workloads of the records database");
        while (query.step())
            result.push_back(readWorkload(query));
    }
    for (WorkloadRecord& workload : result)
        workload.tasks = workloadTasks(workload.id);
    return result;
}

std::optional<WorkloadRecord> RecordStore::workload(std::int64_t id) const {
    std::optional<WorkloadRecord> result;
    {
        SqliteStatement query(*m_db, fmt::format("SELECT {} FROM workloads WHERE id = ?1", kWorkloadColumns),
                              fmt::format("Cannot read workload {} of the records database", id));
        query.bind(1, id);
        if (query.step())
            result = readWorkload(query);
    }
    if (result)
        result->tasks = workloadTasks(id);
    return result;
}

} // namespace ts
