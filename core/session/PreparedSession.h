#pragma once

#include "backends/Backend.h"
#include "datasets/Dataset.h"
#include "datasets/DatasetProfile.h"
#include "models/ConfigFeatureTable.h"
#include "models/PriorSource.h"
#include "models/TransferPrior.h"
#include "session/KernelSessionTarget.h"
#include "session/RecordWriter.h"
#include "session/ReplayTarget.h"
#include "session/SessionPlan.h"
#include "session/TuningSession.h"
#include "store/RecordStore.h"
#include "store/SessionLock.h"
#include "strategies/Strategy.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// A session built from its plan: the target (replay dataset or kernel), backend, warm start, strategy,
// loop, record, lock and records writer, for a new session and for a resume alike. The one place where a
// plan becomes running parts and where every check of a resume is made (resumable, same device, source
// unchanged, not running elsewhere); the CLI and the window only make plans and observe the session.
//
// Use: create() or resume(), add observers to session(), open(), run(). Building may take seconds (a
// kernel's reference is compiled); the window does it on its worker thread. Throws Error (one sentence
// naming the input) on anything that cannot run; nothing is written to the store before open().
class PreparedSession {
public:
    struct Hooks {
        // Lines for the user: what a warm start was built from (or that there was nothing to transfer).
        std::function<void(const std::string&)> warmStart;
        // Other remarks on the plan (a budget capped at the size of the space).
        std::function<void(const std::string&)> notice;
        // The plan's replay dataset when the caller has loaded it already (same path), else null.
        std::shared_ptr<const Dataset> dataset;
        // With `dataset`: its static profile when the caller has read it already (null: it has none); unset,
        // the profile beside the dataset's file is read.
        std::optional<std::shared_ptr<const DatasetProfile>> profile;
        // With `dataset`: its static features in the plan's mode, for a strategy with option `hardware`,
        // when the caller has computed them already (many seeds of one dataset share them).
        std::shared_ptr<const ConfigFeatureTable> staticFeatures;
        // A warm start the caller has built (compare's prior from the other datasets of the kernel), used
        // as it is in place of the plan's priors and transfer.
        std::shared_ptr<const TransferPrior> prior;
    };

    // The checks that need no building (the plan's fields, the strategy and its options, a prior for a
    // strategy that uses one, the kernel's spec, variant and size): what a front end asks before it starts
    // anything. Throws Error.
    static void validate(const SessionPlan& plan);

    // A new session of `plan`. The store must outlive the prepared session.
    static std::unique_ptr<PreparedSession> create(const SessionPlan& plan, RecordStore& store,
                                                   Hooks hooks = {});
    // A session that keeps no record: no store, no lock, no writer (compare's many seeds). It needs no open()
    // and refuses a plan with transfer (there are no records to transfer from; Hooks::prior is the way).
    static std::unique_ptr<PreparedSession> unrecorded(const SessionPlan& plan, Hooks hooks = {});
    // Session `id` of the store continued with the plan it was recorded with; `timeLimitS`, when given,
    // replaces the stored time limit for this run (each run gets its own). Refused when the session is not
    // in the store, has used its budget, was measured on another device, or its dataset or kernel source
    // changed since.
    static std::unique_ptr<PreparedSession> resume(RecordStore& store, std::int64_t id,
                                                   std::optional<double> timeLimitS = std::nullopt,
                                                   Hooks hooks = {});

    ~PreparedSession();
    PreparedSession(const PreparedSession&) = delete;
    PreparedSession& operator=(const PreparedSession&) = delete;

    // Records the new session, or reopens the resumed one with its finished trials preloaded (counted
    // against the budget, told to the strategy, never measured again); takes the session's lock and adds the
    // records writer as the session's first observer. Returns the session's id. Call once, before run().
    std::int64_t open();
    // Runs the loop; when something throws, closes the record as failed and rethrows.
    StopReason run();
    // The loop with its measurements dealt to `pool` (TuningSession::run(MeasurePool&)), e.g. the measuring
    // ranks of an MPI job, each with a backend built from plan(); otherwise as run().
    StopReason run(MeasurePool& pool);
    // The loop one batch at a time (TuningSession::start/step/finish), for a workload that interleaves its
    // tasks' sessions: step() starts the session on its first call and measures at most `maxEvaluations`
    // configs; finish() closes the record with the reason's status. Like run(), a throw closes the record
    // as failed and rethrows.
    std::optional<StopReason> step(std::size_t maxEvaluations);
    // The loop with measurement elsewhere, batch by batch (TuningSession::deal/complete), for a workload
    // whose batches are measured by the ranks of an MPI job; deal() starts the session on its first call.
    std::optional<TuningSession::Dealt> deal(std::size_t maxEvaluations);
    void complete(std::int64_t ticket, std::vector<Measurement> measurements);
    void finish(StopReason reason);

    // The plan as stored: files absolute, the strategy's name and every option filled, the budget capped.
    const SessionPlan& plan() const { return m_plan; }
    std::optional<std::int64_t> id() const { return m_id; }
    bool resumed() const { return m_resumeOf.has_value(); }
    const SearchSpace& space() const;
    std::vector<std::string> parameterNames() const;
    const std::string& kernelName() const { return m_kernelName; }
    TuningSession& session() { return *m_session; }
    const TuningSession& session() const { return *m_session; }
    const Strategy& strategy() const { return *m_strategy; }
    Backend& backend() { return *m_backendInUse; }
    // The replay dataset (narrowed by the plan's constraints); null for a kernel.
    const Dataset* dataset() const { return m_dataset.get(); }
    // The kernel target; null for replay.
    const KernelSessionTarget* kernelTarget() const { return m_kernel.get(); }
    const TransferPrior* prior() const { return m_prior.get(); }

private:
    PreparedSession(const SessionPlan& plan, RecordStore* store, Hooks hooks,
                    std::optional<SessionRecord> resumed);
    void buildTarget();
    void buildStrategy();
    std::shared_ptr<const TransferPrior> warmStart(const Strategy& strategy, bool hardware);
    SessionPlan::Found findSources(std::vector<PriorSource>& records) const;
    SessionRecord describe() const;
    std::string deviceName() const;
    void closeFailed() noexcept;
    void startOnce();
    void checkOpen() const;
    std::filesystem::path sourceFile() const;

    SessionPlan m_plan;
    RecordStore* m_store; // null: unrecorded
    Hooks m_hooks;
    std::optional<SessionRecord> m_resumeOf;
    std::string m_kernelName;
    std::shared_ptr<const Dataset> m_dataset;
    std::unique_ptr<ReplayTarget> m_replay;
    std::unique_ptr<KernelSessionTarget> m_kernel;
    Backend* m_backendInUse = nullptr;
    std::unique_ptr<Strategy> m_strategy;
    std::string m_strategyOptionsJson;
    std::shared_ptr<const TransferPrior> m_prior;
    nlohmann::json m_warmStartRecord; // null without a prior built here
    std::unique_ptr<TuningSession> m_session;
    std::optional<std::int64_t> m_id;
    bool m_started = false;
    std::optional<SessionLock> m_lock;
    std::unique_ptr<RecordWriter> m_writer;
};

} // namespace ts
