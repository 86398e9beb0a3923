#include "session/SessionPlan.h"

#include "kernels/KernelCatalog.h"
#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/JsonField.h"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>

namespace ts {

namespace {

std::string absolute(const std::string& path) {
    return path.empty() ? path : std::filesystem::absolute(path).lexically_normal().string();
}

nlohmann::json kernelJson(const KernelTuneOptions& k) {
    std::string spec = k.kernelSpec;
    if (spec.empty() && !k.kernel.empty()) {
        try {
            spec = KernelCatalog().find(k.kernel).specFile.string();
        } catch (const Error&) {
            // An unknown kernel: check() says so; the plan is still written as it was given.
        }
    }
    return {{"name", k.kernel},
            {"spec", spec},
            {"size", k.size},
            {"timeout_s", k.timeoutS},
            {"repeat", k.timing.repeat},
            {"min_repeat_ms", k.timing.minRepeatMs},
            {"warmup_ms", k.timing.warmupMs},
            {"flush", k.timing.flush},
            {"cache_dir", k.cacheDir}};
}

KernelTuneOptions kernelOf(const nlohmann::json& j, const std::string& what) {
    KernelTuneOptions k;
    if (!j.is_object())
        return k;
    // A catalog kernel is found by name again (the spec file was where the catalog had it then).
    k.kernel = jsonField<std::string>(j, "name", "", what);
    if (k.kernel.empty())
        k.kernelSpec = jsonField<std::string>(j, "spec", "", what);
    k.size = jsonField<std::string>(j, "size", "", what);
    k.timeoutS = jsonField<double>(j, "timeout_s", k.timeoutS, what);
    k.timing.repeat = jsonField<int>(j, "repeat", k.timing.repeat, what);
    k.timing.minRepeatMs = jsonField<double>(j, "min_repeat_ms", k.timing.minRepeatMs, what);
    k.timing.warmupMs = jsonField<double>(j, "warmup_ms", k.timing.warmupMs, what);
    k.timing.flush = jsonField<bool>(j, "flush", k.timing.flush, what);
    k.cacheDir = jsonField<std::string>(j, "cache_dir", "", what);
    return k;
}

void checkKernel(const KernelTuneOptions& k) {
    if (!k.active())
        throw Error("A cpu or cuda session needs a kernel: a name of the catalog or a kernel spec file.");
    if (!k.kernel.empty() && !k.kernelSpec.empty())
        throw Error("Give either a kernel of the catalog or a kernel spec file, not both.");
    if (!(k.timeoutS > 0) || !std::isfinite(k.timeoutS))
        throw Error(fmt::format("The timeout {} is not a positive number of seconds.", k.timeoutS));
    if (k.timing.repeat < 1)
        throw Error(fmt::format("The repeat count {} is not a positive number of samples.", k.timing.repeat));
    if (!(k.timing.minRepeatMs >= 0))
        throw Error(fmt::format("The minimum sample time {} ms is negative.", k.timing.minRepeatMs));
    if (!(k.timing.warmupMs >= 0))
        throw Error(fmt::format("The warm-up time {} ms is negative.", k.timing.warmupMs));
}

} // namespace

void SessionPlan::check() const {
    if (backend != "replay" && backend != "cpu" && backend != "cuda")
        throw Error(fmt::format("The backend \"{}\" is not one of replay, cpu or cuda.", backend));
    if (measuresKernel()) {
        if (!dataset.empty())
            throw Error(fmt::format("A {} session measures a kernel for real; it has no replay dataset ({}).",
                                    backend, dataset));
        checkKernel(kernel);
    } else {
        if (dataset.empty())
            throw Error("A replay session needs a dataset: a Kernel Tuner cache, T4 or KTT file.");
        if (kernel.active())
            throw Error(fmt::format("A replay session replays {}; it measures no kernel ({}).", dataset,
                                    kernel.kernel.empty() ? kernel.kernelSpec : kernel.kernel));
    }
    if (budget <= 0)
        throw Error(fmt::format("The budget {} is not a positive number of evaluations.", budget));
    if (batchSize == 0)
        throw Error("The batch size 0 is not a positive number of configs.");
    if (!(timeLimitS >= 0) || !std::isfinite(timeLimitS))
        throw Error(fmt::format("The time limit {} s is not a number of seconds of 0 or more.", timeLimitS));
    if (!(replayDelayMs >= 0 && replayDelayMs <= 60000))
        throw Error(fmt::format("The replay delay {} ms is not a time from 0 to 60000 ms.", replayDelayMs));
    if (replayDelayMs > 0 && measuresKernel())
        throw Error(
            fmt::format("A replay delay applies to replayed measurements; the {} backend measures for "
                        "real.",
                        backend));
    if (patience < 0)
        throw Error(fmt::format("The patience {} is negative.", patience));
    if (!(targetMs >= 0) || !std::isfinite(targetMs))
        throw Error(fmt::format("The target {} ms is not a time of 0 or more.", targetMs));
}

SessionPlan SessionPlan::withAbsolutePaths() const {
    SessionPlan plan = *this;
    plan.dataset = absolute(dataset);
    plan.kernel.kernelSpec = absolute(kernel.kernelSpec);
    plan.kernel.cacheDir = absolute(kernel.cacheDir);
    for (std::string& prior : plan.priors)
        prior = absolute(prior);
    return plan;
}

SessionSettings SessionPlan::sessionSettings() const {
    SessionSettings settings;
    settings.mode = mode;
    settings.batchSize = batchSize;
    settings.stop.maxEvaluations = budget;
    if (timeLimitS > 0)
        settings.stop.maxSeconds = timeLimitS;
    if (patience > 0)
        settings.stop.patience = patience;
    if (targetMs > 0)
        settings.stop.targetObjective = targetMs;
    return settings;
}

nlohmann::json SessionPlan::toJson() const {
    nlohmann::json j{{"backend", backend},
                     {"dataset", dataset},
                     {"constraints", constraints},
                     {"stochastic", stochastic},
                     {"replay_delay_ms", replayDelayMs},
                     {"strategy", strategy},
                     {"options", options},
                     {"seed", seed},
                     {"space", toString(mode)},
                     {"batch_size", batchSize},
                     {"budget", budget},
                     {"time_limit", timeLimitS},
                     {"patience", patience},
                     {"target", targetMs},
                     {"cold", cold},
                     {"priors", priors},
                     {"transfer", transfer}};
    if (found)
        j["found"] = {{"datasets", found->datasets}, {"sessions", found->sessions}};
    if (measuresKernel())
        j["kernel"] = kernelJson(kernel);
    return j;
}

SessionPlan SessionPlan::fromJson(const nlohmann::json& j, const std::string& what) {
    SessionPlan p;
    if (!j.is_object())
        throw Error(fmt::format("The {} is not a JSON object.", what));
    p.backend = jsonField<std::string>(j, "backend", p.backend, what);
    p.dataset = jsonField<std::string>(j, "dataset", "", what);
    if (p.measuresKernel())
        p.kernel = kernelOf(j.value("kernel", nlohmann::json::object()), what);
    p.constraints = jsonField<std::vector<std::string>>(j, "constraints", {}, what);
    p.stochastic = jsonField<bool>(j, "stochastic", false, what);
    p.replayDelayMs = jsonField<double>(j, "replay_delay_ms", 0.0, what);
    p.strategy = jsonField<std::string>(j, "strategy", p.strategy, what);
    // Options are stored typed (numbers, booleans); the registry takes them as text.
    if (const auto options = j.find("options"); options != j.end() && options->is_object())
        for (const auto& [name, value] : options->items())
            p.options[name] = value.is_string() ? value.get<std::string>() : value.dump();
    p.seed = jsonField<std::uint64_t>(j, "seed", 0, what);
    const std::string space = jsonField<std::string>(j, "space", toString(p.mode), what);
    const std::optional<SpaceMode> mode = spaceModeFromString(space);
    if (!mode)
        throw Error(fmt::format("The {} has space mode \"{}\", not constrained or product.", what, space));
    p.mode = *mode;
    p.batchSize = jsonField<std::size_t>(j, "batch_size", p.batchSize, what);
    p.budget = jsonField<std::int64_t>(j, "budget", p.budget, what);
    p.timeLimitS = jsonField<double>(j, "time_limit", 0.0, what);
    p.patience = jsonField<std::int64_t>(j, "patience", 0, what);
    p.targetMs = jsonField<double>(j, "target", 0.0, what);
    p.priors = jsonField<std::vector<std::string>>(j, "priors", {}, what);
    p.transfer = jsonField<bool>(j, "transfer", false, what);
    p.cold = jsonField<bool>(j, "cold", false, what);
    if (const auto found = j.find("found"); found != j.end() && found->is_object())
        p.found = Found{jsonField<std::vector<std::string>>(*found, "datasets", {}, what),
                        jsonField<std::vector<std::int64_t>>(*found, "sessions", {}, what)};
    return p;
}

SessionPlan SessionPlan::ofRecord(const SessionRecord& r) {
    const std::string what = fmt::format("plan of session {}", r.id);
    nlohmann::json settings = parseBoundedJson(r.settings, "the settings of session " + std::to_string(r.id));
    if (!settings.is_object())
        settings = nlohmann::json::object();
    // The columns say what every session had (and win: the budget there is the one in force, capped at the
    // space's size when the session began); the settings say the rest.
    nlohmann::json j = settings;
    j["backend"] = r.backend.empty() ? "replay" : r.backend;
    j["dataset"] = r.dataset;
    j["strategy"] = r.strategy;
    j["options"] = parseBoundedJson(r.options, "the options of session " + std::to_string(r.id));
    j["seed"] = r.seed;
    j["space"] = r.spaceMode.empty() ? "constrained" : r.spaceMode;
    j["budget"] = r.budget;
    if (!settings.contains("cold"))
        j["cold"] = true; // stored before warm starts were the default: it ran cold
    return fromJson(j, what);
}

} // namespace ts
