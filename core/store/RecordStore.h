#pragma once

#include "store/DatabaseAccess.h"
#include "store/SessionRecord.h"
#include "store/WorkloadRecord.h"
#include "trial/Trial.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ts {

class SqliteConnection;
class SqliteStatement;

// A trial as read back from the database.
struct StoredTrial {
    std::int64_t session = 0;
    std::int64_t number = 0;
    std::uint64_t index = 0;
    std::string config; // JSON object name -> value
    std::string status; // MeasureStatus name
    double objective = 0.0;
    std::vector<double> samples;
    double median = 0, min = 0, mean = 0, stdev = 0, cv = 0;
    std::optional<double> predicted;
    double compileMs = 0.0;
    std::string log;
    std::int64_t batch = 0;
    double elapsedS = 0.0;
    double finishedAt = 0.0;
    std::map<std::string, double> metrics; // Measurement::metrics (schema 2; empty for older trials)
};

// SQLite store of sessions and trials (WAL, schema versioned by PRAGMA user_version and migrated on open).
// One writer, many readers: each RecordStore owns its own connection; use one per thread.
// Every trial is committed in its own transaction the moment commit() returns.
class RecordStore {
public:
    // Opens or creates the database. Throws Error with one sentence naming the file when it cannot be
    // opened or created (read-only directory, not a database, newer schema version, ...).
    //
    // ReadWrite first checks the file (PRAGMA quick_check) and refuses a damaged one before anything is
    // written to it. ReadOnly (for commands that only read) needs an existing file and writes nothing to it,
    // except that a file of an older schema is upgraded first when it is writable.
    explicit RecordStore(const std::filesystem::path& path,
                         DatabaseAccess access = DatabaseAccess::ReadWrite);
    ~RecordStore();
    RecordStore(const RecordStore&) = delete;
    RecordStore& operator=(const RecordStore&) = delete;

    // $XDG_DATA_HOME/tunescope/records.db, or ~/.local/share/tunescope/records.db.
    static std::filesystem::path defaultPath();
    static constexpr int kSchemaVersion = 4;

    const std::filesystem::path& path() const { return m_path; }

    // How long a call waits for another connection's lock before it fails with Error (kDefaultLockWait by
    // default), retrying meanwhile; `notice` is called once per wait longer than a second (e.g. to say so).
    void setBusyTimeout(std::chrono::milliseconds timeout);
    void setLockWaitNotice(std::function<void()> notice);
    static constexpr std::chrono::milliseconds kDefaultLockWait{60000};
    // Caps the file at this many pages (PRAGMA max_page_count) for this connection: a quota, and the way
    // tests reach a real "database or disk is full" failure. Returns the cap sqlite applied.
    std::int64_t setMaxPageCount(std::int64_t pages);

    std::int64_t beginSession(const SessionRecord& session);
    void commit(std::int64_t session, const Trial& trial, const std::vector<std::string>& parameterNames);
    void endSession(std::int64_t session, const std::string& status);
    // Marks an ended or interrupted session as running again (tune --resume). Throws Error when it is absent.
    void reopenSession(std::int64_t session);

    std::vector<SessionRecord> sessions() const;
    std::optional<SessionRecord> session(std::int64_t id) const;
    std::vector<StoredTrial> trials(std::int64_t session) const;
    std::int64_t trialCount(std::int64_t session) const;

    // Adds finished sessions with their trials (trials[i] belongs to sessions[i]) in one transaction:
    // imports are all or nothing. The trials keep their statistics as given; their `session` field is
    // ignored. Returns the new sessions' ids.
    std::vector<std::int64_t> importSessions(const std::vector<SessionRecord>& sessions,
                                             const std::vector<std::vector<StoredTrial>>& trials);

    // Workloads (schema 3): a workload and its tasks in one transaction; returns the workload's id (the
    // tasks' sessions are usually unset yet).
    std::int64_t beginWorkload(const WorkloadRecord& workload);
    // A task's session, status and error, as the workload goes on. Throws Error when the task is absent.
    void updateWorkloadTask(std::int64_t workload, const WorkloadTaskRecord& task);
    void endWorkload(std::int64_t workload, const std::string& status);
    // Marks an ended or interrupted workload as running again (workload resume).
    void reopenWorkload(std::int64_t workload);
    std::vector<WorkloadRecord> workloads() const;
    std::optional<WorkloadRecord> workload(std::int64_t id) const;

    // PRAGMA user_version of the file as it is now.
    std::int64_t schemaVersion() const;

private:
    void checkIntegrity();
    void migrate();
    std::int64_t insertSession(const SessionRecord& session, const std::string& action);
    void insertTrial(const StoredTrial& trial, const std::string& action);
    std::vector<WorkloadTaskRecord> workloadTasks(std::int64_t workload) const;
    void setWorkloadStatus(std::int64_t workload, const std::string& status, bool ended);

    std::filesystem::path m_path;
    // Declared before the statements so that it is closed after they are finalized.
    std::unique_ptr<SqliteConnection> m_db;
    std::unique_ptr<SqliteStatement> m_insertTrial;
};

} // namespace ts
