#include "distributed/MpiMeasureServer.h"

#include "distributed/MeasurementJson.h"
#include "distributed/MpiChannel.h"
#include "session/KernelSessionTarget.h"
#include "session/ReplayTarget.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
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
// The longest pause between two looks for a message from rank 0 (a finished job ends the pause at once):
// short against a measurement, long enough that eight ranks waiting on one node take nothing worth having
// from rank 0 or from the measurements.
constexpr auto kPollPause = std::chrono::microseconds(250);

// One piece of work of this rank (building a plan's target, measuring a batch) on a thread of its own, so
// that the rank keeps answering rank 0 meanwhile. Its answer is the message sent when it is done.
class RankJob {
public:
    RankJob(MpiChannel::Tag answerTag, std::function<nlohmann::json()> work) : m_tag(answerTag) {
        m_thread = std::thread([this, work = std::move(work)] {
            m_answer = work();
            {
                std::lock_guard lock(m_mutex);
                m_done = true;
            }
            m_finished.notify_all();
        });
    }
    ~RankJob() {
        if (m_thread.joinable())
            m_thread.join();
    }
    RankJob(const RankJob&) = delete;
    RankJob& operator=(const RankJob&) = delete;

    bool done() const { return m_done; }
    // Waits until the job is done or `pause` has passed.
    void waitFor(std::chrono::microseconds pause) {
        std::unique_lock lock(m_mutex);
        m_finished.wait_for(lock, pause, [this] { return m_done.load(); });
    }
    // Lets the thread run on when the process is about to end without unwinding.
    void abandon() { m_thread.detach(); }
    MpiChannel::Tag tag() const { return m_tag; }
    nlohmann::json answer() {
        m_thread.join();
        return std::move(m_answer);
    }

private:
    MpiChannel::Tag m_tag;
    std::thread m_thread;
    std::atomic<bool> m_done{false};
    std::mutex m_mutex; // with m_finished: the serving loop's wait ends when the job is done
    std::condition_variable m_finished;
    nlohmann::json m_answer;
};

// The plans this rank was sent, by key (a workload's task; 0 for a lone session), as built targets.
using Targets = std::map<std::size_t, std::unique_ptr<RankTarget>>;

// Builds the target of a Plan message into `slot`; the answer is the Hello: this rank's device, or why it
// cannot measure the plan.
std::function<nlohmann::json()> buildWork(const nlohmann::json& body, std::unique_ptr<RankTarget>& slot,
                                          nlohmann::json hello) {
    return [body, &slot, hello = std::move(hello)]() mutable {
        try {
            const SessionPlan plan = SessionPlan::fromJson(body.at("plan"), "plan sent by rank 0");
            auto target = buildTarget(plan);
            if (target->space->productSize() != body.at("space_size").get<SearchSpace::Index>() ||
                nlohmann::json(parameterNames(*target->space)) != body.at("parameters"))
                throw Error("its space is not rank 0's (another dataset or kernel file at the same path)");
            hello["device"] = target->backend->deviceFingerprint();
            slot = std::move(target);
        } catch (const std::exception& e) {
            hello["error"] = e.what();
        }
        return hello;
    };
}

// Measures the configs of a Batch message with the target of its plan; the answer is the Result.
std::function<nlohmann::json()> measureWork(const nlohmann::json& body, const RankTarget* target) {
    return [ticket = body.value("ticket", std::int64_t{0}), indices = body.value("indices", nlohmann::json()),
            key = body.value("key", std::size_t{0}), target]() -> nlohmann::json {
        try {
            if (!target)
                throw Error(
                    fmt::format("this rank cannot measure plan {} (see its answer to the plan)", key));
            std::vector<Config> configs;
            for (const nlohmann::json& index : indices)
                configs.push_back(target->space->config(index.get<SearchSpace::Index>()));
            nlohmann::json measurements = nlohmann::json::array();
            for (const Measurement& m : target->backend->measure(configs))
                measurements.push_back(measurementToJson(m));
            return {{"ticket", ticket}, {"measurements", measurements}};
        } catch (const std::exception& e) {
            return {{"ticket", ticket}, {"error", e.what()}};
        }
    };
}

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
    // Built on the heap and left to the end of the process when interrupted (a job may still use them).
    auto targets = std::make_unique<Targets>();
    std::deque<MpiChannel::Message> queue; // plans and batches, taken one at a time in the order sent
    std::unique_ptr<RankJob> job;
    const nlohmann::json hello{{"host", m_runtime.host()}, {"pid", static_cast<std::int64_t>(::getpid())}};
    auto lastHeartbeat = std::chrono::steady_clock::now() - kHeartbeatInterval;
    for (;;) {
        if (std::chrono::steady_clock::now() - lastHeartbeat >= kHeartbeatInterval) {
            MpiChannel::send(0, MpiChannel::Tag::Heartbeat, nlohmann::json::object());
            lastHeartbeat = std::chrono::steady_clock::now();
        }
        if (std::optional<MpiChannel::Message> message = MpiChannel::poll(0)) {
            if (message->tag == MpiChannel::Tag::Stop)
                return Ending::Stopped; // a job still running is waited for (~RankJob) and not answered
            if (message->tag == MpiChannel::Tag::Plan || message->tag == MpiChannel::Tag::Batch)
                queue.push_back(std::move(*message));
            continue;
        }
        if (interrupted && interrupted()) {
            if (job)
                job->abandon();
            job.release();     // NOLINT: the process ends without unwinding
            targets.release(); // NOLINT
            return Ending::Interrupted;
        }
        if (job && job->done()) {
            MpiChannel::send(0, job->tag(), job->answer());
            job.reset();
            continue;
        }
        if (!job && !queue.empty()) {
            const MpiChannel::Message message = std::move(queue.front());
            queue.pop_front();
            const nlohmann::json& body = message.body;
            const std::size_t key = body.value("key", std::size_t{0});
            if (message.tag == MpiChannel::Tag::Plan) {
                nlohmann::json answer = hello;
                answer["key"] = key;
                if (body.contains("plan") && body["plan"].value("backend", "") == "cuda") {
                    const std::string gpu =
                        gpuForRank(std::getenv("CUDA_VISIBLE_DEVICES"), m_runtime.deviceIndexOnNode());
                    ::setenv("CUDA_VISIBLE_DEVICES", gpu.c_str(), 1); // before CUDA is first used
                    answer["gpu"] = gpu;
                }
                job = std::make_unique<RankJob>(MpiChannel::Tag::Hello,
                                                buildWork(body, (*targets)[key], std::move(answer)));
            } else {
                auto target = targets->find(key);
                job = std::make_unique<RankJob>(
                    MpiChannel::Tag::Result,
                    measureWork(body, target == targets->end() ? nullptr : target->second.get()));
            }
            continue;
        }
        if (job)
            job->waitFor(kPollPause);
        else
            std::this_thread::sleep_for(kPollPause);
    }
}

} // namespace ts
