// tunescope-worker: measures configs for core, one request at a time, over its stdin and stdout
// (docs/worker-protocol.md). Started and killed by ts::worker::WorkerClient; not meant to be run by hand.
#include "CpuRunner.h"
#ifdef TUNESCOPE_WITH_CUDA
#include "CudaRunner.h"
#endif
#include "ParentGuard.h"
#include "Runner.h"
#include "util/Error.h"
#include "worker/WorkerProtocol.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <sched.h>
#include <string>
#include <unistd.h>

namespace {

using namespace ts::worker;

// The runners this worker has. A CUDA build adds "cuda" here.
std::vector<std::string> runnerNames() {
#ifdef TUNESCOPE_WITH_CUDA
    return {"cpu", "cuda"};
#else
    return {"cpu"};
#endif
}

std::unique_ptr<Runner> makeRunner(const std::string& backend) {
    if (backend == "cpu")
        return std::make_unique<CpuRunner>();
#ifdef TUNESCOPE_WITH_CUDA
    if (backend == "cuda")
        return std::make_unique<CudaRunner>();
#endif
    throw ts::Error(fmt::format("This worker has no \"{}\" runner (it has: cpu).", backend));
}

// The protocol channel, moved off fds 0 and 1 so that kernels printing to stdout cannot corrupt it.
struct Channel {
    FILE* in = nullptr;
    int out = -1;
};

Channel takeChannel() {
    Channel channel;
    int in = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
    channel.out = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
    int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0 || channel.out < 0 || devNull < 0 || ::dup2(devNull, 0) < 0 || ::dup2(2, 1) < 0) {
        std::fprintf(stderr, "tunescope-worker: cannot set up its channel: %s\n", std::strerror(errno));
        std::exit(3);
    }
    ::close(devNull);
    channel.in = ::fdopen(in, "r");
    return channel;
}

void sendLine(int fd, const std::string& text) {
    std::string line = text + "\n";
    std::size_t sent = 0;
    while (sent < line.size()) {
        ssize_t n = ::write(fd, line.data() + sent, line.size() - sent);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            std::exit(4); // the parent is gone
        sent += static_cast<std::size_t>(n);
    }
}

int pinnedCpu(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg.rfind("--cpu=", 0) != 0)
            continue;
        int cpu = std::stoi(arg.substr(6));
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (::sched_setaffinity(0, sizeof set, &set) != 0) {
            std::fprintf(stderr, "tunescope-worker: cannot pin to core %d: %s\n", cpu, std::strerror(errno));
            return -1;
        }
        return cpu;
    }
    return -1;
}

nlohmann::json handle(const nlohmann::json& message, std::map<std::string, std::unique_ptr<Runner>>& runners,
                      int cpu) {
    std::string type = message.value("type", std::string());
    if (type == "hello") {
        HelloReply hello{kProtocolVersion, static_cast<std::int64_t>(::getpid()), runnerNames(), cpu};
        return toJson(hello);
    }
    if (type != "measure")
        return errorMessage(fmt::format("unknown message type \"{}\"", type));
    MeasureRequest request = measureRequestFromJson(message);
    try {
        auto& runner = runners[request.backend];
        if (!runner)
            runner = makeRunner(request.backend);
        return toJson(runner->measure(request));
    } catch (const std::exception& e) {
        MeasureReply reply;
        reply.id = request.id;
        reply.status = ReplyStatus::RuntimeFailed;
        reply.log = e.what();
        return toJson(reply);
    }
}

} // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--version") {
            std::printf("tunescope-worker %s (protocol %d)\n", TUNESCOPE_VERSION, kProtocolVersion);
            return 0;
        }
    int cpu = pinnedCpu(argc, argv);
    Channel channel = takeChannel();
    ParentGuard::start(channel.out);
    std::map<std::string, std::unique_ptr<Runner>> runners;
    char* line = nullptr;
    std::size_t capacity = 0;
    while (::getline(&line, &capacity, channel.in) >= 0) {
        nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
        nlohmann::json reply;
        if (message.is_discarded() || !message.is_object()) {
            reply = errorMessage("the request is not a JSON object");
        } else {
            try {
                reply = handle(message, runners, cpu);
            } catch (const std::exception& e) {
                reply = errorMessage(e.what());
            }
        }
        sendLine(channel.out, reply.dump());
    }
    std::free(line);
    return 0;
}
