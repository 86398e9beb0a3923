#pragma once

#include "data/RunData.h"
#include "running/SessionRunner.h"

#include "kernels/KernelSpec.h"
#include "store/SessionRecord.h"

#include <QString>
#include <memory>
#include <vector>

namespace ts::gui {

// What the window hands the session runner and RunData to start, resume or open a session: the runner's
// request, the parameters the views show and the run's info. Core's PreparedSession and SessionResume do
// the checks; this only gathers their inputs and turns their answers into the views' terms.
class SessionSetup {
public:
    struct Resume {
        SessionRunner::Request request;
        SessionRecord record;
        std::vector<Parameter> parameters;
    };

    // A session of `plan` on the chosen kernel (`spec`, measured for real) or replay `dataset`; throws
    // Error when neither is chosen for what the plan measures.
    static SessionRunner::Request start(SessionPlan plan, const std::shared_ptr<const Dataset>& dataset,
                                        const KernelSpec* spec, const QString& databasePath);
    // The parameters the views show for a session of `plan` the runner accepted (its backend is checked).
    static std::vector<Parameter> parameters(const SessionPlan& plan, const Dataset* dataset,
                                             const KernelSpec* spec);
    // The interrupted session `sessionId` of the database, rebuilt from its stored plan with tune --resume's
    // checks; throws Error naming what stops it.
    static Resume resume(const QString& databasePath, std::int64_t sessionId);

    // The run's info for a new session of `plan` (kernel and device from the dataset or the kernel spec).
    static RunData::Info startInfo(const SessionPlan& plan, const Dataset* dataset, const KernelSpec* spec);
    // The run's info for a session of the records.
    static RunData::Info recordInfo(const SessionRecord& record, const Dataset* dataset);
};

} // namespace ts::gui
