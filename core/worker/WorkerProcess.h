#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace ts::worker {

// How a child process ended.
struct ProcessExit {
    bool signalled = false;
    int signal = 0;               // when signalled
    int exitCode = 0;             // otherwise
    std::string describe() const; // "killed by signal 11 (Segmentation fault)", "exited with code 3"
};

// One running child process in its own process group, talking line by line over a bidirectional pipe (a
// connected Unix stream socket pair on its stdin and stdout; writes never raise SIGPIPE in the parent). Its
// stderr is captured through a second pipe and the last few KB are kept for failure reports.
//
// RAII: the destructor closes the channel, gives the child a moment to exit on end of input, then kills the
// whole process group and reaps it. Not thread-safe: one thread talks to one child.
class WorkerProcess {
public:
    struct Options {
        std::vector<std::string> argv;        // argv[0] is the executable path
        std::optional<int> cpu;               // pin the child (and its threads) to this core
        std::vector<std::string> environment; // extra "NAME=value" entries on top of the parent's
    };

    enum class ReadOutcome { Line, Timeout, Closed };
    struct ReadResult {
        ReadOutcome outcome = ReadOutcome::Closed;
        std::string line; // without the newline, when outcome is Line
    };

    // Throws Error when the executable cannot be started (fork/exec failures are reported by the child
    // through a close-on-exec pipe, so a missing file is an error here, not a dead child later).
    explicit WorkerProcess(Options options);
    ~WorkerProcess();
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    pid_t pid() const { return m_pid; }
    bool running() const { return m_pid > 0 && !m_exit; }

    // Writes text plus a newline. Returns false when the child has closed its end (it died).
    bool send(std::string_view line);
    // Waits up to timeout for one complete line on the child's stdout, draining its stderr meanwhile.
    ReadResult readLine(std::chrono::milliseconds timeout);

    // SIGKILL to the whole process group, then reap. Idempotent.
    void kill();
    // Reaps the child if it has exited (blocking up to timeout); nullopt while it still runs.
    std::optional<ProcessExit> waitExit(std::chrono::milliseconds timeout);
    const std::optional<ProcessExit>& exit() const { return m_exit; }

    // The last bytes the child wrote to stderr.
    std::string stderrTail();

private:
    void drainStderr();
    void closeFds();

    pid_t m_pid = -1;
    int m_channel = -1;   // our end of the socket pair
    int m_stderr = -1;    // read end of the child's stderr pipe
    std::string m_buffer; // bytes read from the channel that do not yet end a line
    std::string m_stderrTail;
    std::optional<ProcessExit> m_exit;
};

} // namespace ts::worker
