#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

struct sqlite3_stmt;

namespace ts {

class SqliteConnection;

// Owns one prepared statement of a SqliteConnection, which must outlive it. Every failing call throws Error
// through the connection, starting the sentence with the statement's `action`.
// Use: reset(), bind..., then step() until it returns false (or run() for statements without rows).
class SqliteStatement {
public:
    SqliteStatement(SqliteConnection& connection, std::string_view sql, std::string action);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    // Makes the statement ready to run again and clears its bindings. Parameters are numbered from 1.
    void reset();
    // Replaces the start of the error sentence, for a reused statement whose failures need context.
    void setAction(std::string action) { m_action = std::move(action); }
    void bind(int index, std::int64_t value);
    void bind(int index, double value);
    void bind(int index, std::string_view text);
    void bind(int index, const std::optional<double>& value);
    void bind(int index, const std::optional<std::int64_t>& value);
    void bindNull(int index);

    // True while a row is available. A failure resets the statement (ending any write it started) and throws.
    bool step();
    // Steps a statement that returns no rows, then resets it so it holds no lock.
    void run();

    // Columns are numbered from 0.
    std::int64_t columnInt64(int column) const;
    double columnDouble(int column) const;
    std::string columnText(int column) const;
    bool columnIsNull(int column) const;
    std::optional<double> columnOptionalDouble(int column) const;

private:
    SqliteConnection& m_connection;
    sqlite3_stmt* m_statement = nullptr;
    std::string m_action;
};

} // namespace ts
