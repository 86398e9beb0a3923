#include "util/OutputFile.h"

#include "util/Error.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace ts {

namespace {

std::string reason(int error) {
    return error != 0 ? std::strerror(error) : "an earlier write failed";
}

const char* kindOf(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISLNK(mode))
        return "a symbolic link";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

// The permission bits of the regular file at `target`, nothing when there is none yet. Throws Error naming
// the target when it is anything but a regular file or cannot be looked at.
std::optional<mode_t> existingMode(const std::string& target, const std::string& what) {
    struct stat info {};
    if (::lstat(target.c_str(), &info) != 0) {
        if (errno == ENOENT)
            return std::nullopt;
        throw Error(fmt::format("Cannot write the {} {}: {}.", what, target, std::strerror(errno)));
    }
    if (!S_ISREG(info.st_mode))
        throw Error(fmt::format("The {} {} is {}, not a regular file.", what, target, kindOf(info.st_mode)));
    return info.st_mode & 07777;
}

// ".NAME.tmp-XXXXXXXX" beside the target; the name is cut so the temporary stays within NAME_MAX.
std::filesystem::path temporaryBeside(const std::filesystem::path& target) {
    thread_local std::mt19937_64 generator{std::random_device{}()};
    std::string base = target.filename().string().substr(0, 64);
    std::filesystem::path folder = target.parent_path();
    if (folder.empty())
        folder = ".";
    return folder / fmt::format(".{}.tmp-{:016x}", base, generator());
}

} // namespace

OutputFile::OutputFile(std::string target, std::string what)
    : m_target(std::move(target)), m_what(std::move(what)) {
    if (m_target.empty())
        throw Error(fmt::format("The {} name is empty.", m_what));
    if (!isStandardOutput())
        openTemporary();
}

OutputFile::~OutputFile() {
    discard();
}

void OutputFile::openTemporary() {
    const std::optional<mode_t> mode = existingMode(m_target, m_what);
    // A file the user may not write is not replaced either, though its folder would allow the rename.
    if (mode && ::access(m_target.c_str(), W_OK) != 0)
        throw Error(fmt::format("Cannot write the {} {}: {}.", m_what, m_target, std::strerror(errno)));
    const std::filesystem::path target(m_target);
    if (target.filename().empty() || target.filename() == "." || target.filename() == "..")
        throw Error(fmt::format("The {} {} names a directory, not a file.", m_what, m_target));
    for (int attempt = 0; m_fd < 0; ++attempt) {
        m_temporary = temporaryBeside(target);
        // 0666 lets the umask decide a new file's permissions, as for any file the user creates.
        m_fd = ::open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (m_fd < 0 && (errno != EEXIST || attempt == 100)) {
            const int error = errno;
            m_temporary.clear();
            throw Error(fmt::format("Cannot write the {} {}: {}.", m_what, m_target, std::strerror(error)));
        }
    }
    // A replaced file keeps its permissions.
    if (mode && ::fchmod(m_fd, *mode) != 0)
        fail(errno);
}

void OutputFile::protect(const std::filesystem::path& input) const {
    if (isStandardOutput())
        return;
    struct stat output {};
    struct stat other {};
    if (::stat(m_target.c_str(), &output) == 0 && ::stat(input.c_str(), &other) == 0 &&
        output.st_dev == other.st_dev && output.st_ino == other.st_ino)
        throw Error(fmt::format("The {} {} is the input file {}; name another file.", m_what, m_target,
                                input.string()));
}

void OutputFile::write(std::string_view bytes) {
    if (m_done)
        throw Error(fmt::format("The {} {} is already complete.", m_what, m_target));
    if (isStandardOutput()) {
        if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size())
            throw Error(standardOutputFailure(errno));
        return;
    }
    while (!bytes.empty()) {
        const ssize_t written = ::write(m_fd, bytes.data(), bytes.size());
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            fail(written < 0 ? errno : ENOSPC);
        bytes.remove_prefix(static_cast<std::size_t>(written));
    }
}

void OutputFile::commit() {
    if (m_done)
        return;
    if (isStandardOutput()) {
        m_done = true;
        flushStandardOutput();
        return;
    }
    if (::fsync(m_fd) != 0)
        fail(errno);
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0)
        fail(errno);
    // Checked again: something else may have taken the path since the constructor looked.
    existingMode(m_target, m_what);
    if (::rename(m_temporary.c_str(), m_target.c_str()) != 0)
        fail(errno);
    m_temporary.clear();
    m_done = true;
}

void OutputFile::fail(int error) {
    discard();
    throw Error(fmt::format("Cannot write the {} {}: {}.", m_what, m_target, reason(error)));
}

void OutputFile::discard() noexcept {
    if (m_fd >= 0) {
        ::close(m_fd); // the file is thrown away: a failed close changes nothing
        m_fd = -1;
    }
    if (!m_temporary.empty()) {
        ::unlink(m_temporary.c_str()); // nothing more to do when even this fails
        m_temporary.clear();
    }
}

void OutputFile::writeAll(const std::string& target, const std::string& what, std::string_view text) {
    OutputFile output(target, what);
    output.write(text);
    output.commit();
}

void OutputFile::flushStandardOutput() {
    if (std::fflush(stdout) != 0)
        throw Error(standardOutputFailure(errno));
    if (std::ferror(stdout))
        throw Error(standardOutputFailure(0));
}

std::string OutputFile::standardOutputFailure(int error) {
    return fmt::format("Cannot write to standard output: {}.", reason(error));
}

} // namespace ts
