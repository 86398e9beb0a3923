#pragma once

#include "kernels/KernelSpec.h"
#include "worker/TimingSettings.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// Messages between core and tunescope-worker. Format and rules: docs/worker-protocol.md. Every message is one
// JSON object on one line; core writes requests to the worker's stdin and reads replies from its stdout.
namespace ts::worker {

inline constexpr int kProtocolVersion = 1;

// One buffer the worker allocates; count is already evaluated for the problem size.
struct BufferSpec {
    std::string name;
    ElementType type = ElementType::Float32;
    std::int64_t count = 0;
    ArgumentFill fill = ArgumentFill::Random;
    bool output = false;
};

struct MeasureRequest {
    std::int64_t id = 0;
    std::string backend = "cpu"; // which runner of the worker measures it ("cpu"; "cuda" when built)
    std::string library;         // the config's built object (cpu: shared object path)
    std::string entry = "tunescope_kernel";
    std::string referenceLibrary; // empty: no verification
    std::string referenceEntry = "tunescope_reference";
    std::vector<std::int64_t> sizes; // problem sizes in the spec's order
    std::vector<BufferSpec> buffers; // in argument order
    Tolerance tolerance;
    std::uint64_t seed = 0; // input fill seed: equal seeds give equal inputs
    TimingSettings timing;
    nlohmann::json backendOptions = nlohmann::json::object(); // runner-specific fields (e.g. cuda launch)
};

// The worker's own verdict; a crash or a hang has no reply and is judged by the parent (WorkerClient).
enum class ReplyStatus { Ok, WrongResult, RuntimeFailed };

struct MeasureReply {
    std::int64_t id = 0;
    ReplyStatus status = ReplyStatus::RuntimeFailed;
    std::vector<double> samplesMs; // ms per call, one per sample
    std::int64_t number = 0;       // calls per sample
    std::int64_t warmupCalls = 0;
    std::string log;                       // why it failed, or the verification summary
    std::map<std::string, double> metrics; // e.g. "max_abs_error", "mismatches", runner-specific figures
};

struct HelloReply {
    int protocol = 0;
    std::int64_t pid = 0;
    std::vector<std::string> backends;
    int cpu = -1; // core the worker runs on when pinned, -1 otherwise
};

const char* toString(ElementType type);
ElementType elementTypeFromString(const std::string& text);
std::size_t elementBytes(ElementType type);
const char* toString(ReplyStatus status);

nlohmann::json toJson(const MeasureRequest& request);
MeasureRequest measureRequestFromJson(const nlohmann::json& json);
nlohmann::json toJson(const MeasureReply& reply);
MeasureReply measureReplyFromJson(const nlohmann::json& json);
nlohmann::json toJson(const HelloReply& reply);
HelloReply helloReplyFromJson(const nlohmann::json& json);

// {"type": "error", "message": ...}: a request the worker could not read.
nlohmann::json errorMessage(const std::string& message);

} // namespace ts::worker
