#pragma once

namespace ts {

// How a command opens the records database. ReadOnly never writes to the file (SQLite may add its -wal and
// -shm files beside it where it can, to read alongside a writer), so it works on a file of mode 444, another
// user's records and a read-only mount.
enum class DatabaseAccess { ReadWrite, ReadOnly };

} // namespace ts
