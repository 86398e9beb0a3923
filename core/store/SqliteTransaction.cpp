#include "store/SqliteTransaction.h"

#include "store/SqliteConnection.h"

#include <sqlite3.h>

namespace ts {

SqliteTransaction::SqliteTransaction(SqliteConnection& connection, std::string action)
    : m_connection(connection), m_action(std::move(action)) {
    m_connection.execute("BEGIN IMMEDIATE", m_action, "BEGIN IMMEDIATE");
    m_open = true;
}

SqliteTransaction::~SqliteTransaction() {
    // A failed statement may already have ended the transaction (e.g. SQLITE_FULL rolls back on its own).
    if (m_open && sqlite3_get_autocommit(m_connection.handle()) == 0)
        sqlite3_exec(m_connection.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
    m_connection.execute("COMMIT", m_action, "COMMIT");
    m_open = false;
}

} // namespace ts
