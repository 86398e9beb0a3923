#pragma once

#include "trial/MeasureStatus.h"
#include "worker/WorkerProcess.h"
#include "worker/WorkerProtocol.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace ts::worker {

struct WorkerOptions {
    std::filesystem::path executable;     // tunescope-worker (see WorkerLocator)
    std::optional<int> cpu;               // core to pin the worker to
    std::vector<std::string> environment; // extra "NAME=value" entries
    std::chrono::milliseconds startTimeout{10000};
};

// The outcome of one measure request as the session sees it.
struct WorkerResult {
    MeasureStatus status = MeasureStatus::RuntimeFailed;
    std::optional<MeasureReply> reply; // when the worker answered
    std::string log;                   // the reply's log, or what happened to the worker
    int signal = 0;                    // the signal that killed the worker, when one did
};

// Talks to one tunescope-worker: starts it on first use (hello handshake), sends measure requests with a
// deadline, and turns a hang into Timeout (the process group is killed) and a death into RuntimeFailed with
// the signal. After either, the next request starts a fresh worker, so a session survives any config.
// Not thread-safe: one thread (the backend's measuring thread) uses it.
class WorkerClient {
public:
    explicit WorkerClient(WorkerOptions options);

    // Throws Error when the worker cannot be started or does not speak this protocol version.
    const HelloReply& hello();
    WorkerResult measure(const MeasureRequest& request, std::chrono::milliseconds timeout);
    // Kills the current worker; the next request starts a new one.
    void stop();

    int starts() const { return m_starts; } // how many workers were started (1 + restarts)
    const WorkerOptions& options() const { return m_options; }

private:
    void ensureStarted();
    WorkerResult died(const std::string& what);

    WorkerOptions m_options;
    std::unique_ptr<WorkerProcess> m_process;
    HelloReply m_hello;
    int m_starts = 0;
};

} // namespace ts::worker
