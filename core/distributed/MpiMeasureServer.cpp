#include "distributed/MpiMeasureServer.h"

#include "distributed/MeasurementJson.h"
#include "distributed/MpiChannel.h"
#include "session/KernelSessionTarget.h"
#include "session/ReplayTarget.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ts {

namespace {

// The plan's target, built on this rank: its backend and space.
struct RankTarget {
    std::unique_ptr<KernelSessionTarget> kernel;
    std::unique_ptr<ReplayTarget> replay;
    Backend* backend = nullptr;
    const SearchSpace* space = nullptr;
};

std::unique_ptr<RankTarget> buildTarget(const SessionPlan& plan) {
    auto target = std::make_unique<RankTarget>();
    if (plan.measuresKernel()) {
        target->kernel = std::make_unique<KernelSessionTarget>(plan);
        target->backend = &target->kernel->backend();
        target->space = &target->kernel->space();
    } else {
        target->replay = std::make_unique<ReplayTarget>(plan);
        target->backend = &target->replay->backend();
        target->space = &target->replay->dataset()->space;
    }
    return target;
}

std::vector<std::string> parameterNames(const SearchSpace& space) {
    std::vector<std::string> names;
    for (const Parameter& p : space.parameters())
        names.push_back(p.name);
    return names;
}

// How often a measuring rank tells rank 0 that it is alive (MpiMeasurePool::lostRank).
constexpr auto kHeartbeatInterval = std::chrono::milliseconds(100);
// The pause between two looks for a message or a finished batch: short against a measurement, long enough
// that eight ranks waiting on one node take nothing worth having from rank 0 or from the measurements.
constexpr auto kPollPause = std::chrono::milliseconds(2);

// One batch measured on a thread of its own, so that this rank keeps answering rank 0 meanwhile.
class BatchRun {
public:
    BatchRun(Backend& backend, std::vector<Config> configs) {
        m_thread = std::thread([this, &backend, configs = std::move(configs)] {
            try {
                m_measurements = backend.measure(configs);
            } catch (const std::exception& e) {
                m_error = e.what();
            }
            m_done = true;
        });
    }
    ~BatchRun() {
        if (m_thread.joinable())
            m_thread.join();
    }
    bool done() const { return m_done; }
    // Lets the thread run on when the process is about to end without unwinding.
    void abandon() { m_thread.detach(); }
    nlohmann::json result(std::int64_t ticket) {
        m_thread.join();
        if (!m_error.empty())
            return {{"ticket", ticket}, {"error", m_error}};
        nlohmann::json measurements = nlohmann::json::array();
        for (const Measurement& m : m_measurements)
            measurements.push_back(measurementToJson(m));
        return {{"ticket", ticket}, {"measurements", measurements}};
    }

private:
    std::thread m_thread;
    std::atomic<bool> m_done{false};
    std::vector<Measurement> m_measurements;
    std::string m_error;
};

} // namespace

std::string MpiMeasureServer::gpuForRank(const char* visible, int index) {
    std::vector<std::string> devices;
    if (visible) {
        std::stringstream list(visible);
        for (std::string device; std::getline(list, device, ',');)
            if (!device.empty())
                devices.push_back(device);
    }
    if (devices.size() == 1)
        return devices.front();
    if (!devices.empty())
        return devices[static_cast<std::size_t>(index) % devices.size()];
    return std::to_string(index);
}

MpiMeasureServer::Ending MpiMeasureServer::serve(const std::function<bool()>& interrupted) {
    std::optional<MpiChannel::Message> first = MpiChannel::receive(interrupted, 0);
    if (!first)
        return Ending::Interrupted;
    if (first->tag != MpiChannel::Tag::Plan)
        return Ending::Stopped;
    // Built on the heap and left to the end of the process when interrupted (a measurement may still use it).
    std::unique_ptr<RankTarget> target;
    nlohmann::json hello{{"host", m_runtime.host()}, {"pid", static_cast<std::int64_t>(::getpid())}};
    try {
        const SessionPlan plan = SessionPlan::fromJson(first->body.at("plan"), "plan sent by rank 0");
        if (plan.backend == "cuda") {
            const std::string gpu =
                gpuForRank(std::getenv("CUDA_VISIBLE_DEVICES"), m_runtime.deviceIndexOnNode());
            ::setenv("CUDA_VISIBLE_DEVICES", gpu.c_str(), 1);
            hello["gpu"] = gpu;
        }
        target = buildTarget(plan);
        if (target->space->productSize() != first->body.at("space_size").get<SearchSpace::Index>() ||
            nlohmann::json(parameterNames(*target->space)) != first->body.at("parameters"))
            throw Error("its space is not rank 0's (another dataset or kernel file at the same path)");
        hello["device"] = target->backend->deviceFingerprint();
    } catch (const std::exception& e) {
        hello["error"] = e.what();
    }
    MpiChannel::send(0, MpiChannel::Tag::Hello, hello);
    std::unique_ptr<BatchRun> running;
    std::int64_t ticket = 0;
    auto lastHeartbeat = std::chrono::steady_clock::now();
    for (;;) {
        if (std::chrono::steady_clock::now() - lastHeartbeat >= kHeartbeatInterval) {
            MpiChannel::send(0, MpiChannel::Tag::Heartbeat, nlohmann::json::object());
            lastHeartbeat = std::chrono::steady_clock::now();
        }
        std::optional<MpiChannel::Message> message = MpiChannel::poll(0);
        if (!message) {
            if (interrupted && interrupted()) {
                if (running)
                    running->abandon();
                running.release(); // NOLINT: the process ends without unwinding
                target.release();  // NOLINT
                return Ending::Interrupted;
            }
            if (running && running->done()) {
                MpiChannel::send(0, MpiChannel::Tag::Result, running->result(ticket));
                running.reset();
                continue;
            }
            std::this_thread::sleep_for(kPollPause);
            continue;
        }
        if (message->tag == MpiChannel::Tag::Stop)
            return Ending::Stopped; // a batch still running is waited for (~BatchRun) and not sent
        if (message->tag != MpiChannel::Tag::Batch || running || !target)
            continue; // rank 0 deals a batch only to an idle rank that said it can measure
        ticket = message->body.at("ticket").get<std::int64_t>();
        std::vector<Config> configs;
        for (const nlohmann::json& index : message->body.at("indices"))
            configs.push_back(target->space->config(index.get<SearchSpace::Index>()));
        running = std::make_unique<BatchRun>(*target->backend, std::move(configs));
    }
}

} // namespace ts
