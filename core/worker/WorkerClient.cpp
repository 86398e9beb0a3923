#include "worker/WorkerClient.h"

#include "util/Error.h"

#include <fmt/format.h>

namespace ts::worker {

namespace {

// How long a worker that closed its channel gets to be reaped before it is killed.
constexpr std::chrono::milliseconds kExitGrace{2000};

} // namespace

WorkerClient::WorkerClient(WorkerOptions options) : m_options(std::move(options)) {}

const HelloReply& WorkerClient::hello() {
    ensureStarted();
    return m_hello;
}

void WorkerClient::stop() {
    m_process.reset();
}

void WorkerClient::ensureStarted() {
    if (m_process && m_process->running())
        return;
    m_process.reset();
    WorkerProcess::Options options;
    options.argv = {m_options.executable.string()};
    if (m_options.cpu)
        options.argv.push_back(fmt::format("--cpu={}", *m_options.cpu));
    options.cpu = m_options.cpu;
    options.environment = m_options.environment;
    auto process = std::make_unique<WorkerProcess>(std::move(options));
    ++m_starts;
    const std::string what = fmt::format("The worker {}", m_options.executable.string());
    if (!process->send(R"({"type":"hello"})"))
        throw Error(fmt::format("{} closed its input right after starting.", what));
    auto read = process->readLine(m_options.startTimeout);
    if (read.outcome != WorkerProcess::ReadOutcome::Line) {
        std::string tail = process->stderrTail();
        throw Error(
            fmt::format("{} did not answer hello ({}){}", what,
                        read.outcome == WorkerProcess::ReadOutcome::Timeout ? "timed out" : "it exited",
                        tail.empty() ? "." : ": " + tail));
    }
    nlohmann::json json = nlohmann::json::parse(read.line, nullptr, false);
    if (json.is_discarded())
        throw Error(fmt::format("{} answered hello with something that is not JSON: {}", what, read.line));
    m_hello = helloReplyFromJson(json);
    if (m_hello.protocol != kProtocolVersion)
        throw Error(fmt::format("{} speaks protocol {}, but this program needs protocol {}.", what,
                                m_hello.protocol, kProtocolVersion));
    m_process = std::move(process);
}

WorkerResult WorkerClient::died(const std::string& what) {
    WorkerResult result;
    result.status = MeasureStatus::RuntimeFailed;
    auto exit = m_process->waitExit(kExitGrace);
    if (!exit) {
        m_process->kill();
        exit = m_process->exit();
    }
    std::string tail = m_process->stderrTail();
    result.signal = exit && exit->signalled ? exit->signal : 0;
    result.log = fmt::format("{}: worker {}", what, exit ? exit->describe() : "vanished");
    if (!tail.empty())
        result.log += "\nworker stderr:\n" + tail;
    m_process.reset();
    return result;
}

WorkerResult WorkerClient::measure(const MeasureRequest& request, std::chrono::milliseconds timeout) {
    ensureStarted();
    if (!m_process->send(toJson(request).dump()))
        return died("the worker closed its input");
    auto read = m_process->readLine(timeout);
    if (read.outcome == WorkerProcess::ReadOutcome::Timeout) {
        m_process->kill();
        WorkerResult result;
        result.status = MeasureStatus::Timeout;
        result.log = fmt::format("no result within {:.3g} s: the worker's process group was killed",
                                 static_cast<double>(timeout.count()) / 1000.0);
        m_process.reset();
        return result;
    }
    if (read.outcome == WorkerProcess::ReadOutcome::Closed)
        return died("the worker died while measuring");
    nlohmann::json json = nlohmann::json::parse(read.line, nullptr, false);
    if (json.is_discarded()) {
        m_process->kill();
        m_process.reset();
        return {MeasureStatus::RuntimeFailed, std::nullopt,
                "the worker wrote something that is not JSON: " + read.line, 0};
    }
    MeasureReply reply = measureReplyFromJson(json);
    if (reply.id != request.id)
        throw Error(
            fmt::format("The worker answered request {} while {} was expected.", reply.id, request.id));
    WorkerResult result;
    switch (reply.status) {
    case ReplyStatus::Ok:
        result.status = MeasureStatus::Ok;
        break;
    case ReplyStatus::WrongResult:
        result.status = MeasureStatus::WrongResult;
        break;
    case ReplyStatus::RuntimeFailed:
        result.status = MeasureStatus::RuntimeFailed;
        break;
    }
    result.log = reply.log;
    result.reply = std::move(reply);
    return result;
}

} // namespace ts::worker
