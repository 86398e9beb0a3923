#include "deploy/DeploymentBuilder.h"

#include "hardware/DeviceFingerprint.h"
#include "kernels/KernelSpecReader.h"
#include "runtime/tunescope/runtime.h"
#include "space/ExpressionParser.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <tuple>

namespace ts {

namespace {

struct Group {
    std::vector<const SessionRecord*> sessions;
    std::int64_t evaluations = 0;
    std::optional<StoredTrial> best;
    const SessionRecord* bestSession = nullptr;
};

nlohmann::ordered_json parsedOr(const std::string& text, nlohmann::ordered_json fallback) {
    nlohmann::ordered_json value = parseBoundedOrderedJson(text, "a stored JSON column");
    return value.is_discarded() ? fallback : value;
}

nlohmann::ordered_json finite(double value) {
    return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json();
}

// What a lookup needs to check an entry's config at another shape: the names of the problem sizes in the
// order of its problem_size, and the constraints over them and the parameters, unbound.
struct Check {
    std::vector<std::string> sizeNames;
    std::vector<std::string> constraints;
};

// Text as a message shows it: quoted, control bytes escaped, invalid UTF-8 replaced.
std::string quoted(const std::string& text) {
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<std::string> stringList(const nlohmann::ordered_json& value) {
    std::vector<std::string> strings;
    if (value.is_array())
        for (const auto& item : value)
            if (item.is_string())
                strings.push_back(item.get<std::string>());
    return strings;
}

// The kernel variant's constraints of a cpu or cuda session: those stored with it, else those of its kernel
// spec file now (sessions recorded before the constraints were stored). Adds a warning when neither is there.
std::vector<std::string> kernelConstraints(const SessionRecord& session,
                                           const nlohmann::ordered_json& settings,
                                           std::vector<std::string>& names,
                                           std::vector<std::string>& warnings) {
    if (const auto it = settings.find(DeploymentBuilder::kKernelConstraintsKey); it != settings.end())
        return stringList(*it);
    const nlohmann::ordered_json kernel = settings.value("kernel", nlohmann::ordered_json::object());
    const std::string spec = kernel.is_object() ? kernel.value("spec", "") : "";
    try {
        if (spec.empty())
            throw Error("its settings name no kernel spec file.");
        const KernelSpec read = readKernelSpec(spec);
        const KernelVariant* variant = read.variant(session.backend);
        if (variant == nullptr)
            throw Error(fmt::format("{} has no {} variant now.", spec, session.backend));
        if (names.empty())
            for (const ProblemParameter& size : read.problem)
                names.push_back(size.name);
        return variant->constraints;
    } catch (const Error& error) {
        warnings.push_back(fmt::format("the kernel constraints of session {} ({}) are unknown, so "
                                       "nearest-shape answers from it are not checked against them: {}",
                                       session.id, session.kernel, error.what()));
    }
    return {};
}

Check checkOf(const SessionRecord& session, std::vector<std::string>& warnings) {
    Check check;
    const nlohmann::ordered_json problem = parseBoundedOrderedJson(session.problem, "a stored problem size");
    if (problem.is_object())
        for (const auto& [name, size] : problem.items())
            check.sizeNames.push_back(name);
    const nlohmann::ordered_json settings = parsedOr(session.settings, nlohmann::ordered_json::object());
    if (!settings.is_object())
        return check;
    std::vector<std::string> all;
    if (session.backend == "cpu" || session.backend == "cuda")
        all = kernelConstraints(session, settings, check.sizeNames, warnings);
    for (std::string& extra : stringList(settings.value("constraints", nlohmann::ordered_json::array())))
        all.push_back(std::move(extra));
    for (std::string& text : all) {
        if (std::find(check.constraints.begin(), check.constraints.end(), text) != check.constraints.end())
            continue;
        try {
            tunescope::constraint::Compiler::compile(text, check.sizeNames);
            check.constraints.push_back(std::move(text));
        } catch (const std::runtime_error& error) {
            warnings.push_back(fmt::format("the constraint {} of session {} ({}) is left out of the "
                                           "deployment: tunescope/runtime.h does not read it ({}), so "
                                           "nearest-shape answers are not checked against it.",
                                           quoted(ExpressionParser::excerpt(text)), session.id,
                                           session.kernel, error.what()));
        }
    }
    return check;
}

nlohmann::ordered_json entryOf(const Group& group, const Check& check) {
    const SessionRecord& session = *group.bestSession;
    const StoredTrial& trial = *group.best;
    DeviceFingerprint fingerprint = DeviceFingerprint::fromJson(session.deviceInfo);
    if (fingerprint.name.empty())
        fingerprint = DeviceFingerprint::ofGpuName(session.device);
    if (fingerprint.architecture.empty())
        fingerprint.architecture = DeviceFingerprint::gpuArchitecture(session.device);
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (const auto& [name, value] : trial.metrics)
        metrics[name] = value;
    nlohmann::ordered_json members = nlohmann::ordered_json::array();
    for (const SessionRecord* member : group.sessions)
        members.push_back(member->id);
    return nlohmann::ordered_json{
        {"kernel", session.kernel},
        {"problem_size", DeploymentBuilder::problemShape(session.problem)},
        // The device's own name (a CPU model, a GPU name) is what a program knows at run time; the recorded
        // device text may add the compiler.
        {"device", fingerprint.name.empty() ? session.device : fingerprint.name},
        {"architecture", fingerprint.architecture},
        {"config", parsedOr(trial.config, nlohmann::ordered_json::object())},
        {"time_ms", trial.objective},
        {"statistics",
         {{"median_ms", finite(trial.median)},
          {"min_ms", finite(trial.min)},
          {"mean_ms", finite(trial.mean)},
          {"stdev_ms", finite(trial.stdev)},
          {"cv", finite(trial.cv)},
          {"samples", trial.samples.size()}}},
        {"metrics", metrics},
        {"device_fingerprint", parsedOr(fingerprint.toJson(), nlohmann::ordered_json::object())},
        {"source_hash", session.sourceHash},
        {"tool_version", session.toolVersion},
        {"date", DeploymentBuilder::isoDate(trial.finishedAt)},
        {"strategy", session.strategy},
        {"backend", session.backend},
        {"evaluations", group.evaluations},
        {"session", session.id},
        {"sessions", members},
        {"size_names", check.sizeNames},
        {"constraints", check.constraints}};
}

} // namespace

nlohmann::ordered_json DeploymentBuilder::problemShape(const std::string& problem) {
    // As the runtime reads an entry's shape, so that a deployment holds what its readers understand.
    return tunescope::shapeFromJson(parseBoundedOrderedJson(problem, "a stored problem size"));
}

std::string DeploymentBuilder::isoDate(double unixSeconds) {
    if (!std::isfinite(unixSeconds) || unixSeconds <= 0)
        return {};
    const std::time_t seconds = static_cast<std::time_t>(unixSeconds);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

nlohmann::ordered_json DeploymentBuilder::build(std::optional<std::int64_t> session) {
    if (session)
        return build(std::vector<std::int64_t>{*session});
    return buildFrom(m_store.sessions());
}

nlohmann::ordered_json DeploymentBuilder::build(const std::vector<std::int64_t>& ids) {
    std::vector<SessionRecord> sessions;
    for (const std::int64_t id : ids) {
        std::optional<SessionRecord> one = m_store.session(id);
        if (!one)
            throw Error(
                fmt::format("Session {} is not in the records database {}.", id, m_store.path().string()));
        sessions.push_back(std::move(*one));
    }
    return buildFrom(std::move(sessions));
}

nlohmann::ordered_json DeploymentBuilder::buildFrom(std::vector<SessionRecord> sessions) {
    m_skipped.clear();
    m_warnings.clear();
    // Ordered by key so that the file does not depend on session order.
    std::map<std::tuple<std::string, std::string, std::string>, Group> groups;
    nlohmann::ordered_json defaults = nlohmann::ordered_json::object();
    for (const SessionRecord& record : sessions) {
        Group& group = groups[{record.kernel, problemShape(record.problem).dump(), record.device}];
        group.sessions.push_back(&record);
        const nlohmann::ordered_json settings = parsedOr(record.settings, nlohmann::ordered_json::object());
        if (settings.is_object() && settings.contains("default_config") &&
            settings["default_config"].is_object())
            defaults[record.kernel] = settings["default_config"];
        for (StoredTrial& trial : m_store.trials(record.id)) {
            ++group.evaluations;
            if (trial.status != "ok" || !std::isfinite(trial.objective))
                continue;
            if (!group.best || trial.objective < group.best->objective) {
                group.best = std::move(trial);
                group.bestSession = &record;
            }
        }
    }
    nlohmann::ordered_json entries = nlohmann::ordered_json::array();
    for (const auto& [key, group] : groups) {
        if (!group.best) {
            m_skipped.push_back(fmt::format("{} on {}", std::get<0>(key), std::get<2>(key)));
            continue;
        }
        entries.push_back(entryOf(group, checkOf(*group.bestSession, m_warnings)));
    }
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return nlohmann::ordered_json{
        {"format", "tunescope-deployment"}, {"version", 1},         {"tool_version", TUNESCOPE_VERSION},
        {"created", isoDate(now)},          {"defaults", defaults}, {"entries", entries}};
}

} // namespace ts
