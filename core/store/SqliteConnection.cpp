#include "store/SqliteConnection.h"

#include "util/Error.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <system_error>
#include <thread>

namespace ts {

namespace {

// "file:" URI of a path (RFC 3986: all but unreserved characters and '/' percent-encoded), plus a query.
std::string fileUri(const std::filesystem::path& path, std::string_view query) {
    std::string uri = "file:";
    for (const unsigned char c : std::filesystem::absolute(path).string()) {
        if (std::isalnum(c) != 0 || std::strchr("-._~/", c) != nullptr)
            uri.push_back(static_cast<char>(c));
        else
            uri += fmt::format("%{:02X}", c);
    }
    uri.push_back('?');
    uri += query;
    return uri;
}

// Whether the write-ahead log beside the file holds frames a reader must see.
bool hasLogToRead(const std::filesystem::path& path) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path.string() + "-wal", error);
    return !error && size > 0;
}

// The pause before the next try at a lock: short at first, so a brief write costs little, then 100 ms.
std::chrono::milliseconds backOff(int attempt) {
    constexpr int kFirst[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50};
    return std::chrono::milliseconds(attempt < static_cast<int>(std::size(kFirst)) ? kFirst[attempt] : 100);
}

} // namespace

SqliteConnection::SqliteConnection(const std::filesystem::path& path, DatabaseAccess access) : m_path(path) {
    if (access == DatabaseAccess::ReadOnly) {
        openReadOnly();
    } else {
        const bool existed = std::filesystem::exists(path);
        open(path.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, existed ? "open" : "create");
    }
}

void SqliteConnection::open(const std::string& name, int flags, const char* verb) {
    const int rc = sqlite3_open_v2(name.c_str(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        // sqlite hands back a handle even when opening fails; it only carries the message now.
        const std::string message = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close(m_db);
        m_db = nullptr;
        throw Error(fmt::format("Cannot {} the records database {}: {}.", verb, m_path.string(), message));
    }
    sqlite3_extended_result_codes(m_db, 1);
}

void SqliteConnection::openReadOnly() {
    std::error_code error;
    if (!std::filesystem::exists(m_path, error))
        throw Error(fmt::format("The records database {} does not exist.", m_path.string()));
    open(m_path.string(), SQLITE_OPEN_READONLY, "open");
    // The first read is where a write-ahead-logged file shows that its -shm file cannot be created: as
    // SQLITE_CANTOPEN on a read-only mount, as SQLITE_READONLY_* in a folder this user may not write to.
    const int rc = sqlite3_exec(m_db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
    if ((rc & 0xff) != SQLITE_CANTOPEN && (rc & 0xff) != SQLITE_READONLY)
        return; // readable, or a failure the first real statement reports with its own sentence
    sqlite3_close(m_db);
    m_db = nullptr;
    if (hasLogToRead(m_path))
        throw Error(fmt::format("Cannot read the records database {}: its latest trials are in {}-wal, and "
                                "SQLite cannot create the {}-shm file it needs to read them there (a "
                                "read-only folder or mount); copy the database with its -wal file to a "
                                "writable folder.",
                                m_path.string(), m_path.string(), m_path.string()));
    // No log to read: the file alone is the whole database, and nobody can write where we cannot.
    open(fileUri(m_path, "immutable=1"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, "open");
}

SqliteConnection::~SqliteConnection() {
    // Every statement is finalized by its owner first, so close cannot report SQLITE_BUSY.
    sqlite3_close(m_db);
}

void SqliteConnection::setBusyTimeout(std::chrono::milliseconds timeout) {
    m_busyTimeout = timeout;
    check(sqlite3_busy_handler(m_db, &SqliteConnection::onBusy, this), "sqlite3_busy_handler",
          "Cannot configure the records database");
}

int SqliteConnection::onBusy(void* connection, int attempt) {
    auto& self = *static_cast<SqliteConnection*>(connection);
    const auto now = std::chrono::steady_clock::now();
    if (attempt == 0) {
        self.m_waitStarted = now;
        self.m_waitNoticed = false;
    }
    const auto waited = now - self.m_waitStarted;
    if (waited >= self.m_busyTimeout)
        return 0; // give up: the statement fails with SQLITE_BUSY
    if (!self.m_waitNoticed && waited >= kLockNoticeAfter && self.m_lockNotice) {
        self.m_waitNoticed = true;
        self.m_lockNotice();
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(self.m_busyTimeout - waited);
    std::this_thread::sleep_for(std::clamp(backOff(attempt), std::chrono::milliseconds(1), left));
    return 1;
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
    if ((rc & 0xff) == SQLITE_BUSY)
        throw Error(fmt::format("{} {}: another process held its lock for more than {:g} s ({}: {}).", action,
                                m_path.string(), static_cast<double>(m_busyTimeout.count()) / 1000.0, call,
                                message));
    throw Error(fmt::format("{} {} ({}: {}).", action, m_path.string(), call, message));
}

} // namespace ts
