#include "records/SqliteConnection.h"

#include "util/Error.h"

#include <fmt/format.h>
#include <sqlite3.h>

namespace ts {

SqliteConnection::SqliteConnection(const std::filesystem::path& path) : m_path(path) {
    const bool existed = std::filesystem::exists(path);
    const int rc = sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
        // sqlite hands back a handle even when opening fails; it only carries the message now.
        const std::string message = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close(m_db);
        m_db = nullptr;
        throw Error(fmt::format("Cannot {} the records database {}: {}.", existed ? "open" : "create",
                                m_path.string(), message));
    }
    sqlite3_extended_result_codes(m_db, 1);
}

SqliteConnection::~SqliteConnection() {
    // Every statement is finalized by its owner first, so close cannot report SQLITE_BUSY.
    sqlite3_close(m_db);
}

void SqliteConnection::setBusyTimeout(std::chrono::milliseconds timeout) {
    check(sqlite3_busy_timeout(m_db, static_cast<int>(timeout.count())), "sqlite3_busy_timeout",
          "Cannot configure the records database");
}

std::int64_t SqliteConnection::lastInsertRowId() const {
    return sqlite3_last_insert_rowid(m_db);
}

std::int64_t SqliteConnection::changes() const {
    return sqlite3_changes64(m_db);
}

void SqliteConnection::execute(const char* sql, std::string_view action, const char* call) {
    char* message = nullptr;
    const int rc = sqlite3_exec(m_db, sql, nullptr, nullptr, &message);
    sqlite3_free(message); // sqlite3_errmsg carries the same text
    check(rc, call, action);
}

void SqliteConnection::check(int rc, const char* call, std::string_view action) const {
    if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE)
        fail(rc, call, action);
}

void SqliteConnection::fail(int rc, const char* call, std::string_view action) const {
    const std::string message = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    if ((rc & 0xff) == SQLITE_NOTADB)
        throw Error(fmt::format("{} is not a Tunescope records database ({}).", m_path.string(), message));
    throw Error(fmt::format("{} {} ({}: {}).", action, m_path.string(), call, message));
}

} // namespace ts
