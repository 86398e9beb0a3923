#include "session/PreparedSession.h"

#include "datasets/DatasetCatalog.h"
#include "datasets/DatasetReader.h"
#include "datasets/TransferSources.h"
#include "deploy/DeploymentBuilder.h"
#include "hardware/DeviceFingerprint.h"
#include "kernels/KernelSpace.h"
#include "store/RecordPriors.h"
#include "store/SessionResume.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"
#include "util/SourceHash.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

namespace ts {

namespace {

void say(const std::function<void(const std::string&)>& to, const std::string& text) {
    if (to)
        to(text);
}

double unixSeconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

} // namespace

void PreparedSession::validate(const SessionPlan& plan) {
    plan.check();
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    const std::string name = registry.entry(plan.strategy).name;          // throws naming an unknown strategy
    const StrategyOptions options = registry.options(name, plan.options); // throws naming the option
    if ((!plan.priors.empty() || plan.transfer) && !registry.create(name)->usesPrior())
        throw Error(fmt::format("A warm start (priors or transfer) applies to strategies with a prior, such "
                                "as xgb (the default); {} does not use a prior.",
                                name));
    if (options.isOn("hardware") && plan.measuresKernel())
        throw Error("Option hardware=true applies to replay datasets with a static profile; a kernel "
                    "measured here has none yet.");
    if (plan.measuresKernel()) {
        const KernelSpec spec = loadKernelSpec(plan.kernel);
        if (!spec.variant(plan.backend))
            throw Error(fmt::format("Kernel {} has no {} variant.", spec.name, plan.backend));
        kernelProblemSize(spec, plan.kernel);
    }
}

std::unique_ptr<PreparedSession> PreparedSession::create(const SessionPlan& plan, RecordStore& store,
                                                         Hooks hooks) {
    validate(plan);
    return std::unique_ptr<PreparedSession>(
        new PreparedSession(plan.withAbsolutePaths(), &store, std::move(hooks), std::nullopt));
}

std::unique_ptr<PreparedSession> PreparedSession::unrecorded(const SessionPlan& plan, Hooks hooks) {
    validate(plan);
    if (plan.transfer)
        throw Error("A session that keeps no record has no records to transfer from: start it with a store, "
                    "or give it a prior.");
    return std::unique_ptr<PreparedSession>(
        new PreparedSession(plan.withAbsolutePaths(), nullptr, std::move(hooks), std::nullopt));
}

std::unique_ptr<PreparedSession> PreparedSession::resume(RecordStore& store, std::int64_t id,
                                                         std::optional<double> timeLimitS, Hooks hooks) {
    SessionRecord record = SessionResume::resumable(store, id);
    SessionPlan plan = SessionPlan::ofRecord(record);
    if (timeLimitS)
        plan.timeLimitS = *timeLimitS;
    validate(plan);
    auto prepared =
        std::unique_ptr<PreparedSession>(new PreparedSession(plan, &store, std::move(hooks), record));
    SessionResume::checkSameDevice(record, prepared->deviceName());
    SessionResume::checkSourceUnchanged(record, prepared->sourceFile());
    return prepared;
}

PreparedSession::PreparedSession(const SessionPlan& plan, RecordStore* store, Hooks hooks,
                                 std::optional<SessionRecord> resumed)
    : m_plan(plan), m_store(store), m_hooks(std::move(hooks)), m_resumeOf(std::move(resumed)) {
    buildTarget();
    buildStrategy();
    m_session =
        std::make_unique<TuningSession>(space(), *m_backendInUse, *m_strategy, m_plan.sessionSettings());
    if (auto asked = m_session->budgetCappedFrom())
        say(m_hooks.notice,
            fmt::format("The budget {} is more than the {} configs of the {} space, so the "
                        "budget is {}.",
                        *asked, *m_session->budget(), toString(m_plan.mode), *m_session->budget()));
    m_plan.budget = m_session->budget().value_or(m_plan.budget);
}

PreparedSession::~PreparedSession() = default;

void PreparedSession::buildTarget() {
    if (m_plan.measuresKernel()) {
        m_kernel = std::make_unique<KernelSessionTarget>(m_plan);
        m_kernelName = m_kernel->spec().name;
        m_backendInUse = &m_kernel->backend();
        return;
    }
    m_replay = std::make_unique<ReplayTarget>(m_plan, m_hooks.dataset, m_hooks.profile);
    m_dataset = m_replay->dataset();
    m_kernelName = m_dataset->kernelName;
    m_backendInUse = &m_replay->backend();
}

void PreparedSession::buildStrategy() {
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    m_plan.strategy = registry.entry(m_plan.strategy).name;
    StrategyOptions options = registry.options(m_plan.strategy, m_plan.options);
    m_plan.options = options.values();
    m_strategyOptionsJson = options.toJson();
    m_strategy = registry.create(m_plan.strategy);
    m_prior = warmStart(*m_strategy, options.isOn("hardware"));
    StrategyContext context{&space(), m_plan.mode, m_plan.seed, options, m_prior};
    if (options.isOn("hardware")) // validate() refused it for a kernel measured here
        context.staticFeatures =
            m_hooks.staticFeatures ? m_hooks.staticFeatures : m_replay->staticFeatures(m_plan.mode);
    m_strategy->reset(context);
}

// The prior of the plan's sources, saying what it was built from (null when there are none: a cold start).
// Warm by default (plan.cold false): the catalog's datasets of the same kernel measured elsewhere and the
// earlier sessions of the kernel on another device or size, found once and kept in the plan (a resume uses
// the sources it found then), hardware-aware where the dataset tuned and the sources have static profiles.
// The plan's priors and transfer are added either way. A resumed session is no prior of itself.
std::shared_ptr<const TransferPrior> PreparedSession::warmStart(const Strategy& strategy, bool hardware) {
    const bool automatic = !m_plan.cold && !m_hooks.prior;
    if (!strategy.usesPrior())
        return nullptr; // validate() refused a plan asking for a prior by name
    if (m_hooks.prior)
        return m_hooks.prior;
    if (!automatic && m_plan.priors.empty() && !m_plan.transfer)
        return nullptr;
    std::optional<std::vector<PriorSource>> foundRecords; // the sessions findSources took, read once
    if (automatic && !m_plan.found)
        m_plan.found = findSources(foundRecords.emplace());
    std::vector<std::string> files = m_plan.priors;
    if (automatic)
        for (const std::string& path : m_plan.found->datasets) {
            std::error_code ec;
            if (!std::filesystem::exists(path, ec))
                say(m_hooks.warmStart,
                    fmt::format("{}, found when the session began, is gone: the warm start "
                                "goes on without it.",
                                path));
            else if (std::find(files.begin(), files.end(), path) == files.end())
                files.push_back(path);
        }
    // The dataset tuned's hardware features: asked for (option hardware), or by default where it has a
    // static profile that can be used (a profile that cannot leaves the default prior on the parameters).
    std::shared_ptr<const ConfigFeatureTable> targetHardware;
    if (m_replay && hardware)
        targetHardware = m_replay->transferFeatures();
    else if (m_replay && automatic)
        try {
            targetHardware = m_replay->transferFeatures();
        } catch (const Error&) {
        }
    std::vector<std::shared_ptr<const Dataset>> datasets; // alive while the prior is built from them
    std::vector<PriorSource> sources;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string& path = files[i];
        const bool named = i < m_plan.priors.size(); // a catalog's file that cannot serve is left out
        try {
            auto dataset = std::make_shared<const Dataset>(readDataset(path));
            if (!TransferPrior::compatible(space(), dataset->space))
                throw Error(
                    fmt::format("The prior {}: its parameters are not those of the space being tuned, "
                                "so it cannot warm-start it.",
                                path));
            PriorSource source = priorSource(*dataset, targetHardware != nullptr);
            source.label = fmt::format("{} ({})", dataset->path.filename().string(), dataset->deviceName);
            sources.push_back(std::move(source));
            datasets.push_back(std::move(dataset));
        } catch (const Error& error) {
            if (named)
                throw;
            say(m_hooks.warmStart, fmt::format("Left out of the warm start: {}", error.what()));
        }
    }
    if (m_store && (m_plan.transfer || automatic)) {
        std::function<bool(const SessionRecord&)> accept; // transfer: every earlier session of the kernel
        if (!m_plan.transfer) {
            const std::vector<std::int64_t> found = m_plan.found->sessions;
            accept = [found](const SessionRecord& r) {
                return std::find(found.begin(), found.end(), r.id) != found.end();
            };
        }
        // Found just now: those sessions were read already (a resumed one, of this device and size, is
        // never among them).
        std::vector<PriorSource> records = foundRecords && !m_plan.transfer
                                               ? std::move(*foundRecords)
                                               : recordPriorSources(*m_store, m_kernelName, space(),
                                                                    m_resumeOf ? m_resumeOf->id : 0, accept);
        if (records.empty() && m_plan.transfer)
            say(m_hooks.warmStart, fmt::format("No earlier session of {} with these parameters in {} to "
                                               "transfer from.",
                                               m_kernelName, m_store->path().string()));
        sources.insert(sources.end(), std::make_move_iterator(records.begin()),
                       std::make_move_iterator(records.end()));
    }
    if (sources.empty()) {
        // Said when a warm start was asked for by name; a default one that finds nothing is today's cold run.
        if (!m_plan.priors.empty() || m_plan.transfer)
            say(m_hooks.warmStart, "Starting cold: there is nothing to transfer.");
        return nullptr;
    }
    const auto started = std::chrono::steady_clock::now();
    auto prior = std::make_shared<const TransferPrior>(space(), sources, XgbSettings{}, targetHardware);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::string labels;
    m_warmStartRecord = {{"hardware_aware", prior->hardwareAware()}, {"rows", prior->rows()}};
    for (const PriorSource& source : sources) {
        labels +=
            fmt::format("{}{}: {} configs", labels.empty() ? "" : "; ", source.label, source.entries.size());
        m_warmStartRecord["sources"].push_back(
            {{"source", source.label}, {"configs", source.entries.size()}});
    }
    say(m_hooks.warmStart,
        fmt::format("Warm start{} from {} measured configs of {} source(s): {} (prior built in {:.1f} s{}).",
                    prior->hardwareAware() ? " (hardware-aware)" : "", prior->rows(), sources.size(), labels,
                    seconds, automatic ? "; --cold starts without it" : ""));
    if (hardware && !prior->hardwareAware())
        say(m_hooks.warmStart, "The prior uses the parameters alone: a hardware-aware prior needs a static "
                               "profile of the dataset tuned and of every source.");
    return prior;
}

// What a warm start by default takes: the catalog's datasets of this kernel measured elsewhere, and the
// earlier sessions of the kernel in the store on another device or size (none measuring what a dataset
// taken measured already). Those sessions' trials, read to find them, are left in `records`.
SessionPlan::Found PreparedSession::findSources(std::vector<PriorSource>& records) const {
    SessionPlan::Found found;
    const SessionRecord self = describe();
    DatasetHeader target{m_plan.dataset, m_kernelName, self.device, self.problem, parameterNames()};
    std::sort(target.parameterNames.begin(), target.parameterNames.end());
    std::vector<DatasetHeader> taken = DatasetCatalog().sourcesFor(target);
    for (const DatasetHeader& header : taken)
        found.datasets.push_back(std::filesystem::absolute(header.path).lexically_normal().string());
    if (!m_store)
        return found;
    auto measuredAlready = [&](const SessionRecord& r) {
        return (r.device == self.device && r.problem == self.problem) ||
               std::any_of(taken.begin(), taken.end(), [&](const DatasetHeader& h) {
                   return h.deviceName == r.device && h.problemSize == r.problem;
               });
    };
    records = recordPriorSources(*m_store, m_kernelName, space(), 0,
                                 [&](const SessionRecord& r) { return !measuredAlready(r); });
    for (const PriorSource& source : records)
        found.sessions.push_back(source.session);
    return found;
}

const SearchSpace& PreparedSession::space() const {
    return m_kernel ? m_kernel->space() : m_dataset->space;
}

std::vector<std::string> PreparedSession::parameterNames() const {
    std::vector<std::string> names;
    for (const Parameter& p : space().parameters())
        names.push_back(p.name);
    return names;
}

// What the measurements are bound to: the GPU a dataset names, the device a kernel backend measures on.
std::string PreparedSession::deviceName() const {
    return m_kernel ? m_kernel->backend().deviceFingerprint() : m_dataset->deviceName;
}

std::filesystem::path PreparedSession::sourceFile() const {
    return m_kernel ? m_kernel->source() : std::filesystem::path(m_plan.dataset);
}

SessionRecord PreparedSession::describe() const {
    SessionRecord record;
    nlohmann::json settings = m_plan.toJson();
    if (!m_warmStartRecord.is_null())
        settings["warm_start"] = m_warmStartRecord; // what the prior was built from, for the record
    if (m_kernel) {
        m_kernel->describe(record);
        settings["default_config"] = m_kernel->defaultConfig();
        // Unbound (over size and parameter names): a deployment checks a config at other shapes with them.
        settings[DeploymentBuilder::kKernelConstraintsKey] = m_kernel->kernelSpace().variant().constraints;
    } else {
        record.kernel = m_dataset->kernelName;
        record.problem = m_dataset->problemSize;
        record.device = m_dataset->deviceName;
        record.backend = "replay";
        record.dataset = m_plan.dataset;
        record.sourceHash = SourceHash::ofFile(m_plan.dataset);
        if (!record.device.empty())
            record.deviceInfo = DeviceFingerprint::ofGpuName(record.device).toJson();
    }
    record.strategy = m_plan.strategy;
    record.options = m_strategyOptionsJson;
    record.seed = m_plan.seed;
    record.spaceMode = toString(m_plan.mode);
    record.budget = m_plan.budget;
    record.parameters = nlohmann::json(parameterNames()).dump();
    record.toolVersion = TUNESCOPE_VERSION;
    record.settings = settings.dump();
    record.startedAt = unixSeconds();
    return record;
}

std::int64_t PreparedSession::open() {
    if (m_id)
        throw Error(fmt::format("Session {} is open already.", *m_id));
    if (!m_store)
        throw Error("A session that keeps no record is not opened: run it.");
    if (m_resumeOf) {
        m_lock.emplace(m_store->path(), m_resumeOf->id); // refuses a second process resuming it meanwhile
        m_session->preload(SessionResume::finishedTrials(*m_store, *m_resumeOf, space()));
        m_store->reopenSession(m_resumeOf->id);
        m_id = m_resumeOf->id;
    } else {
        m_id = m_store->beginSession(describe());
        m_lock.emplace(m_store->path(), *m_id);
    }
    m_writer = std::make_unique<RecordWriter>(*m_store, *m_id, parameterNames());
    m_session->addObserverFirst(m_writer.get());
    return *m_id;
}

void PreparedSession::checkOpen() const {
    if (m_store && !m_id)
        throw Error("The session was not opened: open() records it before it runs.");
}

void PreparedSession::closeFailed() noexcept {
    if (!m_store)
        return;
    try {
        m_store->endSession(*m_id, toString(SessionStatus::Failed));
    } catch (const std::exception&) {
        // The database itself failed; the original error says why.
    }
}

StopReason PreparedSession::run() {
    checkOpen();
    try {
        return m_session->run();
    } catch (...) {
        closeFailed();
        throw;
    }
}

StopReason PreparedSession::run(MeasurePool& pool) {
    checkOpen();
    try {
        return m_session->run(pool);
    } catch (...) {
        closeFailed();
        throw;
    }
}

std::optional<StopReason> PreparedSession::step(std::size_t maxEvaluations) {
    checkOpen();
    try {
        startOnce();
        return m_session->step(maxEvaluations);
    } catch (...) {
        closeFailed();
        throw;
    }
}

std::optional<TuningSession::Dealt> PreparedSession::deal(std::size_t maxEvaluations) {
    checkOpen();
    try {
        startOnce();
        return m_session->deal(maxEvaluations);
    } catch (...) {
        closeFailed();
        throw;
    }
}

void PreparedSession::complete(std::int64_t ticket, std::vector<Measurement> measurements) {
    checkOpen();
    try {
        m_session->complete(ticket, std::move(measurements));
    } catch (...) {
        closeFailed();
        throw;
    }
}

void PreparedSession::startOnce() {
    if (!m_started) {
        m_session->start();
        m_started = true;
    }
}

void PreparedSession::finish(StopReason reason) {
    checkOpen();
    try {
        m_session->finish(reason);
    } catch (...) {
        closeFailed();
        throw;
    }
}

} // namespace ts
