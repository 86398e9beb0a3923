#include "worker/WorkerProcess.h"

#include "util/Error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ts::worker {

namespace {

constexpr std::size_t kStderrTailBytes = 4096;

std::string systemError(const char* call) {
    return fmt::format("{} failed: {}", call, std::strerror(errno));
}

void closeFd(int& fd) {
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

ProcessExit exitFromStatus(int status) {
    ProcessExit exit;
    if (WIFSIGNALED(status)) {
        exit.signalled = true;
        exit.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        exit.exitCode = WEXITSTATUS(status);
    }
    return exit;
}

// Everything the child needs, prepared before fork: after fork only async-signal-safe calls are allowed
// (the parent has other threads).
struct ExecPlan {
    std::vector<std::string> argvStorage;
    std::vector<std::string> envStorage;
    std::vector<char*> argv;
    std::vector<char*> envp;

    ExecPlan(const std::vector<std::string>& args, const std::vector<std::string>& extraEnv)
        : argvStorage(args) {
        for (char** e = environ; e && *e; ++e) {
            std::string entry(*e);
            std::string name = entry.substr(0, entry.find('='));
            bool overridden = false;
            for (const std::string& extra : extraEnv)
                overridden = overridden || extra.substr(0, extra.find('=')) == name;
            if (!overridden)
                envStorage.push_back(entry);
        }
        envStorage.insert(envStorage.end(), extraEnv.begin(), extraEnv.end());
        for (std::string& a : argvStorage)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        for (std::string& e : envStorage)
            envp.push_back(e.data());
        envp.push_back(nullptr);
    }
};

[[noreturn]] void childFail(int errorPipe, int code) {
    ssize_t ignored = ::write(errorPipe, &code, sizeof code);
    (void)ignored;
    ::_exit(127);
}

} // namespace

std::string ProcessExit::describe() const {
    if (signalled)
        return fmt::format("killed by signal {} ({})", signal, ::strsignal(signal));
    return fmt::format("exited with code {}", exitCode);
}

WorkerProcess::WorkerProcess(Options options) {
    if (options.argv.empty())
        throw Error("A worker process needs a command line, but none was given.");
    ExecPlan plan(options.argv, options.environment);
    int channel[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0)
        throw Error(systemError("socketpair"));
    int errPipe[2];
    if (::pipe2(errPipe, O_CLOEXEC) != 0) {
        ::close(channel[0]);
        ::close(channel[1]);
        throw Error(systemError("pipe2"));
    }
    int execPipe[2];
    if (::pipe2(execPipe, O_CLOEXEC) != 0) {
        for (int fd : {channel[0], channel[1], errPipe[0], errPipe[1]})
            ::close(fd);
        throw Error(systemError("pipe2"));
    }
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (options.cpu)
        CPU_SET(*options.cpu, &cpus);

    pid_t pid = ::fork();
    if (pid == 0) {
        // Child: own process group (so a timeout kills everything it started), pinned, channel on 0 and 1.
        ::setpgid(0, 0);
        if (options.cpu && ::sched_setaffinity(0, sizeof cpus, &cpus) != 0)
            childFail(execPipe[1], errno);
        if (::dup2(channel[1], 0) < 0 || ::dup2(channel[1], 1) < 0 || ::dup2(errPipe[1], 2) < 0)
            childFail(execPipe[1], errno);
        // Restore default dispositions the parent may have changed (the CLI's SIGINT handler is reset by
        // exec; ignored signals are not).
        ::signal(SIGPIPE, SIG_DFL);
        ::signal(SIGINT, SIG_DFL);
        ::execve(plan.argv[0], plan.argv.data(), plan.envp.data());
        childFail(execPipe[1], errno);
    }
    int forkErrno = errno;
    ::close(channel[1]);
    ::close(errPipe[1]);
    ::close(execPipe[1]);
    if (pid < 0) {
        ::close(channel[0]);
        ::close(errPipe[0]);
        ::close(execPipe[0]);
        errno = forkErrno;
        throw Error(systemError("fork"));
    }
    ::setpgid(pid, pid); // also from the parent, so killpg works even before the child ran
    m_pid = pid;
    m_channel = channel[0];
    m_stderr = errPipe[0];

    int childErrno = 0;
    ssize_t got;
    do {
        got = ::read(execPipe[0], &childErrno, sizeof childErrno);
    } while (got < 0 && errno == EINTR);
    ::close(execPipe[0]);
    if (got == sizeof childErrno) {
        kill();
        closeFds();
        throw Error(
            fmt::format("Cannot start the worker {}: {}.", options.argv[0], std::strerror(childErrno)));
    }
}

WorkerProcess::~WorkerProcess() {
    kill();
    closeFds();
}

void WorkerProcess::closeFds() {
    closeFd(m_channel);
    closeFd(m_stderr);
}

bool WorkerProcess::send(std::string_view line) {
    std::string data(line);
    data.push_back('\n');
    std::size_t sent = 0;
    while (sent < data.size()) {
        ssize_t n = ::send(m_channel, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

WorkerProcess::ReadResult WorkerProcess::readLine(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (auto newline = m_buffer.find('\n'); newline != std::string::npos) {
            ReadResult result{ReadOutcome::Line, m_buffer.substr(0, newline)};
            m_buffer.erase(0, newline + 1);
            return result;
        }
        if (m_channel < 0)
            return {ReadOutcome::Closed, {}};
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                          std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return {ReadOutcome::Timeout, {}};
        pollfd fds[2] = {{m_channel, POLLIN, 0}, {m_stderr, POLLIN, 0}};
        int ready = ::poll(fds, m_stderr >= 0 ? 2 : 1, static_cast<int>(left.count()));
        if (ready < 0) {
            if (errno == EINTR)
                continue;
            throw Error(systemError("poll"));
        }
        if (m_stderr >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            drainStderr();
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char chunk[65536];
            ssize_t n = ::read(m_channel, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                drainStderr();
                closeFd(m_channel);
                return {ReadOutcome::Closed, {}};
            }
            m_buffer.append(chunk, static_cast<std::size_t>(n));
        }
    }
}

void WorkerProcess::drainStderr() {
    while (m_stderr >= 0) {
        pollfd fd{m_stderr, POLLIN, 0};
        if (::poll(&fd, 1, 0) <= 0)
            return;
        char chunk[4096];
        ssize_t n = ::read(m_stderr, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            closeFd(m_stderr);
            return;
        }
        m_stderrTail.append(chunk, static_cast<std::size_t>(n));
        if (m_stderrTail.size() > kStderrTailBytes)
            m_stderrTail.erase(0, m_stderrTail.size() - kStderrTailBytes);
    }
}

std::string WorkerProcess::stderrTail() {
    drainStderr();
    return m_stderrTail;
}

void WorkerProcess::kill() {
    if (m_pid <= 0 || m_exit)
        return;
    ::killpg(m_pid, SIGKILL);
    int status = 0;
    pid_t r;
    do {
        r = ::waitpid(m_pid, &status, 0);
    } while (r < 0 && errno == EINTR);
    if (r == m_pid)
        m_exit = exitFromStatus(status);
    else
        m_exit = ProcessExit{true, SIGKILL, 0};
}

std::optional<ProcessExit> WorkerProcess::waitExit(std::chrono::milliseconds timeout) {
    if (m_exit || m_pid <= 0)
        return m_exit;
    // A pidfd becomes readable when the child exits, so waiting needs no polling loop.
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, m_pid, 0));
    if (pidfd >= 0) {
        pollfd fd{pidfd, POLLIN, 0};
        int ready;
        do {
            ready = ::poll(&fd, 1, static_cast<int>(timeout.count()));
        } while (ready < 0 && errno == EINTR);
        ::close(pidfd);
        if (ready == 0)
            return std::nullopt;
    }
    int status = 0;
    pid_t r;
    do {
        r = ::waitpid(m_pid, &status, pidfd >= 0 ? 0 : WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r != m_pid)
        return std::nullopt;
    m_exit = exitFromStatus(status);
    // The worker is gone; anything it started in its group goes with it.
    ::killpg(m_pid, SIGKILL);
    return m_exit;
}

} // namespace ts::worker
