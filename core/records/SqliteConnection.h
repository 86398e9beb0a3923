#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string_view>

struct sqlite3;

namespace ts {

// Owns one sqlite3 connection to a records database file and turns failed sqlite calls into Error.
class SqliteConnection {
public:
    // Opens (creating when missing) the file read-write. Throws Error naming the file when sqlite cannot.
    explicit SqliteConnection(const std::filesystem::path& path);
    ~SqliteConnection();
    SqliteConnection(const SqliteConnection&) = delete;
    SqliteConnection& operator=(const SqliteConnection&) = delete;

    sqlite3* handle() const { return m_db; }
    const std::filesystem::path& path() const { return m_path; }

    void setBusyTimeout(std::chrono::milliseconds timeout);

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
    std::filesystem::path m_path;
    sqlite3* m_db = nullptr;
};

} // namespace ts
