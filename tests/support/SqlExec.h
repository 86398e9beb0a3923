#pragma once

#include <QString>
#include <QtGlobal>
#include <sqlite3.h>

#include <string>

namespace ts::test {

// Runs one SQL statement on a records database behind the store's back (to stage a case such as a session
// recorded on another machine); aborts the test program when it cannot.
inline void execSql(const QString& db, const std::string& sql) {
    sqlite3* handle = nullptr;
    if (sqlite3_open(db.toUtf8().constData(), &handle) != SQLITE_OK ||
        sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
        qFatal("cannot run %s: %s", sql.c_str(), sqlite3_errmsg(handle));
    sqlite3_close(handle);
}

} // namespace ts::test
