#include "store/SqliteStatement.h"

#include "store/SqliteConnection.h"

#include <sqlite3.h>

namespace ts {

SqliteStatement::SqliteStatement(SqliteConnection& connection, std::string_view sql, std::string action)
    : m_connection(connection), m_action(std::move(action)) {
    m_connection.check(sqlite3_prepare_v3(m_connection.handle(), sql.data(), static_cast<int>(sql.size()),
                                          SQLITE_PREPARE_PERSISTENT, &m_statement, nullptr),
                       "sqlite3_prepare_v3", m_action);
}

SqliteStatement::~SqliteStatement() {
    sqlite3_finalize(m_statement);
}

void SqliteStatement::reset() {
    // sqlite3_reset repeats the last step's error, which step() has already reported.
    sqlite3_reset(m_statement);
    m_connection.check(sqlite3_clear_bindings(m_statement), "sqlite3_clear_bindings", m_action);
}

void SqliteStatement::bind(int index, std::int64_t value) {
    m_connection.check(sqlite3_bind_int64(m_statement, index, value), "sqlite3_bind_int64", m_action);
}

void SqliteStatement::bind(int index, double value) {
    m_connection.check(sqlite3_bind_double(m_statement, index, value), "sqlite3_bind_double", m_action);
}

void SqliteStatement::bind(int index, std::string_view text) {
    m_connection.check(
        sqlite3_bind_text64(m_statement, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
        "sqlite3_bind_text64", m_action);
}

void SqliteStatement::bind(int index, const std::optional<std::int64_t>& value) {
    if (value)
        bind(index, *value);
    else
        bindNull(index);
}

void SqliteStatement::bind(int index, const std::optional<double>& value) {
    if (value)
        bind(index, *value);
    else
        bindNull(index);
}

void SqliteStatement::bindNull(int index) {
    m_connection.check(sqlite3_bind_null(m_statement, index), "sqlite3_bind_null", m_action);
}

bool SqliteStatement::step() {
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    try {
        m_connection.fail(rc, "sqlite3_step", m_action);
    } catch (...) {
        sqlite3_reset(m_statement); // after the message was taken: reset overwrites nothing we still need
        throw;
    }
}

void SqliteStatement::run() {
    while (step()) {
    }
    sqlite3_reset(m_statement);
}

std::int64_t SqliteStatement::columnInt64(int column) const {
    return sqlite3_column_int64(m_statement, column);
}

double SqliteStatement::columnDouble(int column) const {
    return sqlite3_column_double(m_statement, column);
}

std::string SqliteStatement::columnText(int column) const {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(m_statement, column));
    const int size = sqlite3_column_bytes(m_statement, column);
    return text != nullptr ? std::string(text, static_cast<std::size_t>(size)) : std::string();
}

bool SqliteStatement::columnIsNull(int column) const {
    return sqlite3_column_type(m_statement, column) == SQLITE_NULL;
}

std::optional<double> SqliteStatement::columnOptionalDouble(int column) const {
    if (columnIsNull(column))
        return std::nullopt;
    return columnDouble(column);
}

} // namespace ts
