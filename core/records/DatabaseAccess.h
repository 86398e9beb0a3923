#pragma once

namespace ts {

// How a command opens the records database. ReadOnly never writes a byte (nor creates -wal or -shm files
// where it cannot), so it works on a file of mode 444, another user's records and a read-only mount.
enum class DatabaseAccess { ReadWrite, ReadOnly };

} // namespace ts
