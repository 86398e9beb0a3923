#pragma once

#include <string>

namespace ts {

class SqliteConnection;

// BEGIN IMMEDIATE on construction (taking the write lock up front, so a busy database fails here and not
// halfway through); ROLLBACK on destruction unless commit() succeeded.
class SqliteTransaction {
public:
    SqliteTransaction(SqliteConnection& connection, std::string action);
    ~SqliteTransaction();
    SqliteTransaction(const SqliteTransaction&) = delete;
    SqliteTransaction& operator=(const SqliteTransaction&) = delete;

    void commit();

private:
    SqliteConnection& m_connection;
    std::string m_action;
    bool m_open = false;
};

} // namespace ts
