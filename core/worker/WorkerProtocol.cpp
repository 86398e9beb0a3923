#include "worker/WorkerProtocol.h"

#include "util/Error.h"

#include <fmt/format.h>

namespace ts::worker {

namespace {

const char* fillName(ArgumentFill fill) {
    return fill == ArgumentFill::Zero ? "zero" : "random";
}

ArgumentFill fillFromString(const std::string& text) {
    if (text == "random")
        return ArgumentFill::Random;
    if (text == "zero")
        return ArgumentFill::Zero;
    throw Error(fmt::format("Worker message: buffer fill \"{}\" is not random or zero.", text));
}

ReplyStatus replyStatusFromString(const std::string& text) {
    if (text == "ok")
        return ReplyStatus::Ok;
    if (text == "wrong_result")
        return ReplyStatus::WrongResult;
    if (text == "runtime_failed")
        return ReplyStatus::RuntimeFailed;
    throw Error(
        fmt::format("Worker message: status \"{}\" is not ok, wrong_result or runtime_failed.", text));
}

} // namespace

const char* toString(ElementType type) {
    switch (type) {
    case ElementType::Float32:
        return "float32";
    case ElementType::Float16:
        return "float16";
    case ElementType::BFloat16:
        return "bfloat16";
    case ElementType::Int32:
        return "int32";
    }
    return "float32";
}

ElementType elementTypeFromString(const std::string& text) {
    for (ElementType type :
         {ElementType::Float32, ElementType::Float16, ElementType::BFloat16, ElementType::Int32})
        if (text == toString(type))
            return type;
    throw Error(fmt::format("Element type \"{}\" is not float32, float16, bfloat16 or int32.", text));
}

std::size_t elementBytes(ElementType type) {
    return type == ElementType::Float16 || type == ElementType::BFloat16 ? 2 : 4;
}

const char* toString(ReplyStatus status) {
    switch (status) {
    case ReplyStatus::Ok:
        return "ok";
    case ReplyStatus::WrongResult:
        return "wrong_result";
    case ReplyStatus::RuntimeFailed:
        return "runtime_failed";
    }
    return "runtime_failed";
}

nlohmann::json toJson(const MeasureRequest& r) {
    nlohmann::json buffers = nlohmann::json::array();
    for (const BufferSpec& b : r.buffers)
        buffers.push_back({{"name", b.name},
                           {"type", toString(b.type)},
                           {"count", b.count},
                           {"fill", fillName(b.fill)},
                           {"output", b.output}});
    nlohmann::json out{
        {"type", "measure"},
        {"id", r.id},
        {"backend", r.backend},
        {"library", r.library},
        {"entry", r.entry},
        {"sizes", r.sizes},
        {"buffers", buffers},
        {"tolerance", {{"relative", r.tolerance.relative}, {"absolute", r.tolerance.absolute}}},
        {"seed", r.seed},
        {"timing",
         {{"warmup_ms", r.timing.warmupMs},
          {"repeat", r.timing.repeat},
          {"min_repeat_ms", r.timing.minRepeatMs},
          {"flush", r.timing.flush},
          {"max_number", r.timing.maxNumber}}},
        {"backend_options", r.backendOptions}};
    if (!r.referenceLibrary.empty())
        out["reference"] = {{"library", r.referenceLibrary}, {"entry", r.referenceEntry}};
    return out;
}

MeasureRequest measureRequestFromJson(const nlohmann::json& j) {
    try {
        MeasureRequest r;
        r.id = j.at("id").get<std::int64_t>();
        r.backend = j.value("backend", std::string("cpu"));
        r.library = j.at("library").get<std::string>();
        r.entry = j.value("entry", std::string("tunescope_kernel"));
        if (j.contains("reference")) {
            r.referenceLibrary = j["reference"].at("library").get<std::string>();
            r.referenceEntry = j["reference"].value("entry", std::string("tunescope_reference"));
        }
        r.sizes = j.at("sizes").get<std::vector<std::int64_t>>();
        for (const auto& b : j.at("buffers")) {
            BufferSpec spec;
            spec.name = b.at("name").get<std::string>();
            spec.type = elementTypeFromString(b.at("type").get<std::string>());
            spec.count = b.at("count").get<std::int64_t>();
            spec.fill = fillFromString(b.value("fill", std::string("random")));
            spec.output = b.value("output", false);
            if (spec.count < 0)
                throw Error(fmt::format("Worker message: buffer {} has a negative count.", spec.name));
            r.buffers.push_back(spec);
        }
        if (j.contains("tolerance")) {
            r.tolerance.relative = j["tolerance"].value("relative", r.tolerance.relative);
            r.tolerance.absolute = j["tolerance"].value("absolute", r.tolerance.absolute);
        }
        r.seed = j.value("seed", std::uint64_t{0});
        if (j.contains("timing")) {
            const auto& t = j["timing"];
            r.timing.warmupMs = t.value("warmup_ms", r.timing.warmupMs);
            r.timing.repeat = t.value("repeat", r.timing.repeat);
            r.timing.minRepeatMs = t.value("min_repeat_ms", r.timing.minRepeatMs);
            r.timing.flush = t.value("flush", r.timing.flush);
            r.timing.maxNumber = t.value("max_number", r.timing.maxNumber);
        }
        if (r.timing.repeat < 1 || r.timing.maxNumber < 1)
            throw Error("Worker message: repeat and max_number must be at least 1.");
        r.backendOptions = j.value("backend_options", nlohmann::json::object());
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("Worker message: the measure request is malformed ({}).", e.what()));
    }
}

nlohmann::json toJson(const MeasureReply& r) {
    return {{"type", "result"},
            {"id", r.id},
            {"status", toString(r.status)},
            {"samples_ms", r.samplesMs},
            {"number", r.number},
            {"warmup_calls", r.warmupCalls},
            {"log", r.log},
            {"metrics", r.metrics}};
}

MeasureReply measureReplyFromJson(const nlohmann::json& j) {
    try {
        if (j.value("type", std::string()) == "error")
            throw Error(fmt::format("The worker rejected a request: {}", j.value("message", std::string())));
        MeasureReply r;
        r.id = j.at("id").get<std::int64_t>();
        r.status = replyStatusFromString(j.at("status").get<std::string>());
        r.samplesMs = j.value("samples_ms", std::vector<double>{});
        r.number = j.value("number", std::int64_t{0});
        r.warmupCalls = j.value("warmup_calls", std::int64_t{0});
        r.log = j.value("log", std::string());
        r.metrics = j.value("metrics", std::map<std::string, double>{});
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("Worker message: the measure reply is malformed ({}).", e.what()));
    }
}

nlohmann::json toJson(const HelloReply& r) {
    return {{"type", "hello"},
            {"protocol", r.protocol},
            {"pid", r.pid},
            {"backends", r.backends},
            {"cpu", r.cpu}};
}

HelloReply helloReplyFromJson(const nlohmann::json& j) {
    try {
        HelloReply r;
        if (j.at("type").get<std::string>() != "hello")
            throw Error("Worker message: expected a hello reply.");
        r.protocol = j.at("protocol").get<int>();
        r.pid = j.value("pid", std::int64_t{0});
        r.backends = j.value("backends", std::vector<std::string>{});
        r.cpu = j.value("cpu", -1);
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("Worker message: the hello reply is malformed ({}).", e.what()));
    }
}

nlohmann::json errorMessage(const std::string& message) {
    return {{"type", "error"}, {"message", message}};
}

} // namespace ts::worker
