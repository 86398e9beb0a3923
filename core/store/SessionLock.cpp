#include "store/SessionLock.h"

#include "util/Error.h"

#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

namespace ts {

SessionLock::SessionLock(const std::filesystem::path& database, std::int64_t session)
    : SessionLock(database, session, "Session") {}

SessionLock SessionLock::ofWorkload(const std::filesystem::path& database, std::int64_t workload) {
    return SessionLock(database, workload, "Workload");
}

SessionLock::SessionLock(const std::filesystem::path& database, std::int64_t session, const char* what) {
    const std::string path =
        database.string() + (std::string_view(what) == "Workload" ? "-workloads.lock" : "-sessions.lock");
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0)
        return;
    struct flock region {};
    region.l_type = F_WRLCK;
    region.l_whence = SEEK_SET;
    region.l_start = static_cast<off_t>(session);
    region.l_len = 1;
    if (::fcntl(m_fd, F_OFD_SETLK, &region) == 0)
        return;
    const int error = errno;
    ::close(m_fd);
    m_fd = -1;
    if (error == EACCES || error == EAGAIN)
        throw Error(
            fmt::format("{} {} of {} is being run by another process; wait for it to finish or stop it "
                        "first.",
                        what, session, database.string()));
}

SessionLock::~SessionLock() {
    if (m_fd >= 0)
        ::close(m_fd);
}

} // namespace ts
