#pragma once

#include "session/KernelTuneOptions.h"
#include "session/TuningSession.h"
#include "space/SpaceMode.h"
#include "store/SessionRecord.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// Everything that defines a tuning session, as one value (TVM MetaSchedule's TuneContext): what is tuned,
// where it is measured, how it is searched, when it stops and what it starts from. The CLI parses its flags
// into a plan, the window's task panel edits one; PreparedSession turns a plan into running parts, for a new
// session and for a resume. Stored with the session record (SessionRecord::settings), so that any front end
// resumes any other's session the same way.
struct SessionPlan {
    // What is tuned and where: "replay" replays `dataset`; "cpu" or "cuda" build and measure `kernel` for
    // real.
    std::string backend = "replay";
    std::string dataset;                  // replay: the dataset file (Kernel Tuner cache, T4, KTT)
    KernelTuneOptions kernel;             // cpu / cuda: the kernel, its size and the measurement options
    std::vector<std::string> constraints; // extra constraints narrowing the space (Python-like expressions)
    bool stochastic = false;              // replay: one recorded sample instead of the mean
    // replay: wall time (ms) each replayed measurement takes, slept, as a real one would take it (0: none);
    // what a benchmark of the measuring side (an MPI job's ranks) needs from a replayed space.
    double replayDelayMs = 0.0;
    // How it is searched.
    std::string strategy = "default"; // a registry name or the alias
    std::map<std::string, std::string> options;
    std::uint64_t seed = 0;
    SpaceMode mode = SpaceMode::Constrained;
    std::size_t batchSize = 8;
    // When it stops (0: not set). The budget counts unique evaluated configs over the whole session; the
    // time limit is wall time of each run (a resume gets its own).
    std::int64_t budget = 100;
    double timeLimitS = 0.0;
    std::int64_t patience = 0;
    double targetMs = 0.0;
    // What it starts from (transfer learning; strategies with a prior only). Warm by default: the replay
    // datasets of the same kernel measured elsewhere that the dataset catalog holds (DatasetCatalog), and the
    // earlier sessions of the kernel on another device or size in the records database. `cold` starts from
    // nothing found that way; `priors` (datasets given by name) and `transfer` (every earlier session of the
    // kernel) warm a session either way. Plans stored before this field existed read as cold, so that they
    // resume as they ran.
    bool cold = false;
    std::vector<std::string> priors;
    bool transfer = false;
    // Filled when a warm session is prepared: the sources it found (dataset files, session ids), stored with
    // the plan so that a resume starts from the same ones whatever the catalog and the records hold by then.
    struct Found {
        std::vector<std::string> datasets;
        std::vector<std::int64_t> sessions;
        bool operator==(const Found&) const = default;
    };
    std::optional<Found> found;

    bool measuresKernel() const { return backend != "replay"; }

    // Throws Error, one sentence naming the field and the value, on a plan that cannot run: an unknown
    // backend, no target or two, a stop condition out of range, a bad measurement option. The strategy and
    // its options are checked by the registry when the plan is prepared.
    void check() const;
    // The plan with its files as absolute paths (dataset, kernel spec, priors, build cache), so that a
    // stored plan means the same from any working directory.
    SessionPlan withAbsolutePaths() const;
    // The session settings of TuningSession: space mode, batch size and stop conditions.
    SessionSettings sessionSettings() const;

    nlohmann::json toJson() const;
    // Throws Error naming `what` and the key on a value of the wrong type; absent keys keep their defaults.
    static SessionPlan fromJson(const nlohmann::json& json, const std::string& what);
    // The plan a stored session ran with: its settings, completed from its columns for sessions recorded
    // before plans were stored. Throws Error naming the session.
    static SessionPlan ofRecord(const SessionRecord& record);
};

} // namespace ts
