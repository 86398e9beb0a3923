#pragma once

#include <cstdint>
#include <filesystem>

namespace ts {

// Says that this process is running (writing) one session of a records database, so that a second process
// resuming the same session at the same time is refused instead of interleaving its trials with the first's.
// An open-file-description lock on byte `session` of "<database>-sessions.lock" beside the database (next to
// SQLite's own -wal and -shm files): held for the lock's lifetime, released by the kernel when the process
// ends in any way, so a crash never leaves a stale lock.
class SessionLock {
public:
    // Throws Error naming the session and the database when another holder has it. Where the lock file
    // cannot be created (a read-only folder, where no other writer can write either) there is nothing to
    // lock against and the lock is empty.
    SessionLock(const std::filesystem::path& database, std::int64_t session);
    // The same for workload `workload`, in "<database>-workloads.lock": one process runs a workload at a
    // time.
    static SessionLock ofWorkload(const std::filesystem::path& database, std::int64_t workload);
    SessionLock(SessionLock&& other) noexcept : m_fd(other.m_fd) { other.m_fd = -1; }
    ~SessionLock();
    SessionLock(const SessionLock&) = delete;
    SessionLock& operator=(const SessionLock&) = delete;

    bool held() const { return m_fd >= 0; }

private:
    SessionLock(const std::filesystem::path& database, std::int64_t id, const char* what);

    int m_fd = -1;
};

} // namespace ts
