#pragma once

#include "store/DatabaseAccess.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>

struct sqlite3;

namespace ts {

// Owns one sqlite3 connection to a records database file and turns failed sqlite calls into Error.
class SqliteConnection {
public:
    // ReadWrite opens the file (creating it when missing). ReadOnly opens an existing file for reading only;
    // a write-ahead-logged file in a place where its -shm file cannot be created (a read-only mount or
    // folder) and with no log waiting to be read is opened as immutable. Throws Error naming the file when
    // sqlite cannot open it.
    explicit SqliteConnection(const std::filesystem::path& path,
                              DatabaseAccess access = DatabaseAccess::ReadWrite);
    ~SqliteConnection();
    SqliteConnection(const SqliteConnection&) = delete;
    SqliteConnection& operator=(const SqliteConnection&) = delete;

    sqlite3* handle() const { return m_db; }
    const std::filesystem::path& path() const { return m_path; }

    // How long a statement waits for another connection's lock (retrying with a short back-off) before it
    // fails with a sentence saying so.
    void setBusyTimeout(std::chrono::milliseconds timeout);
    // Called once per wait that lasts longer than kLockNoticeAfter, on the waiting thread.
    void setLockWaitNotice(std::function<void()> notice) { m_lockNotice = std::move(notice); }
    static constexpr std::chrono::milliseconds kLockNoticeAfter{1000};

    // Of the last INSERT / INSERT, UPDATE or DELETE on this connection.
    std::int64_t lastInsertRowId() const;
    std::int64_t changes() const;

    // Runs statements that return no rows we need. `action` starts the error sentence, e.g.
    // "Cannot create the schema of the records database". `call` names the step in that message.
    void execute(const char* sql, std::string_view action, const char* call = "sqlite3_exec");

    // Throws Error "<action> <file> (<call>: <sqlite message>)." unless rc is SQLITE_OK, SQLITE_ROW or
    // SQLITE_DONE. A file that is not a database gets "<file> is not a Tunescope records database (...)."
    // whatever the action, since that is the problem the user must fix.
    void check(int rc, const char* call, std::string_view action) const;
    [[noreturn]] void fail(int rc, const char* call, std::string_view action) const;

private:
    static int onBusy(void* connection, int attempt);
    void open(const std::string& name, int flags, const char* verb);
    void openReadOnly();

    std::filesystem::path m_path;
    sqlite3* m_db = nullptr;
    std::chrono::milliseconds m_busyTimeout{0};
    std::chrono::steady_clock::time_point m_waitStarted;
    bool m_waitNoticed = false;
    std::function<void()> m_lockNotice;
};

} // namespace ts
