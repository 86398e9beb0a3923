#include "build/CommandRunner.h"

#include "util/Error.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ts {

namespace {

// Owns the file actions of one posix_spawn call.
class SpawnActions {
public:
    SpawnActions() {
        if (int rc = ::posix_spawn_file_actions_init(&m_actions); rc != 0)
            throw Error(fmt::format("posix_spawn_file_actions_init failed: {}", std::strerror(rc)));
    }
    ~SpawnActions() { ::posix_spawn_file_actions_destroy(&m_actions); }
    SpawnActions(const SpawnActions&) = delete;
    SpawnActions& operator=(const SpawnActions&) = delete;
    posix_spawn_file_actions_t* get() { return &m_actions; }

private:
    posix_spawn_file_actions_t m_actions;
};

// Owns the attributes of one posix_spawn call.
class SpawnAttributes {
public:
    SpawnAttributes() {
        if (int rc = ::posix_spawnattr_init(&m_attributes); rc != 0)
            throw Error(fmt::format("posix_spawnattr_init failed: {}", std::strerror(rc)));
    }
    ~SpawnAttributes() { ::posix_spawnattr_destroy(&m_attributes); }
    SpawnAttributes(const SpawnAttributes&) = delete;
    SpawnAttributes& operator=(const SpawnAttributes&) = delete;
    posix_spawnattr_t* get() { return &m_attributes; }

private:
    posix_spawnattr_t m_attributes;
};

} // namespace

CommandResult runCommand(const std::vector<std::string>& argv) {
    if (argv.empty())
        throw Error("runCommand needs a program to run, but the command line is empty.");
    const auto start = std::chrono::steady_clock::now();
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0)
        throw Error(fmt::format("pipe2 failed: {}", std::strerror(errno)));
    SpawnActions actions;
    ::posix_spawn_file_actions_adddup2(actions.get(), out[1], 1);
    ::posix_spawn_file_actions_adddup2(actions.get(), out[1], 2);
    ::posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> storage = argv;
    std::vector<char*> args;
    for (std::string& a : storage)
        args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = -1;
    // A process group of its own: Ctrl-C in a terminal cancels the session between batches and must not
    // kill the compilers of the batch in flight (their configs would be recorded as CompileFailed).
    SpawnAttributes attributes;
    ::posix_spawnattr_setflags(attributes.get(), POSIX_SPAWN_SETPGROUP);
    ::posix_spawnattr_setpgroup(attributes.get(), 0);
    int rc = ::posix_spawnp(&pid, args[0], actions.get(), attributes.get(), args.data(), environ);
    ::close(out[1]);
    if (rc != 0) {
        ::close(out[0]);
        throw Error(fmt::format("Cannot run {}: {}.", argv[0], std::strerror(rc)));
    }
    CommandResult result;
    char chunk[8192];
    while (true) {
        ssize_t n = ::read(out[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        result.output.append(chunk, static_cast<std::size_t>(n));
    }
    ::close(out[0]);
    int status = 0;
    pid_t waited;
    do {
        waited = ::waitpid(pid, &status, 0);
    } while (waited < 0 && errno == EINTR);
    if (waited == pid && WIFEXITED(status))
        result.exitCode = WEXITSTATUS(status);
    else if (waited == pid && WIFSIGNALED(status))
        result.signal = WTERMSIG(status);
    result.elapsedMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace ts
