#include "window/SessionSetup.h"

#include "datasets/DatasetReader.h"
#include "hardware/CpuInfo.h"
#include "kernels/KernelSizes.h"
#include "session/CudaKernelBackend.h"
#include "session/KernelTuneOptions.h"
#include "session/PreparedSession.h"
#include "store/RecordStore.h"
#include "store/SessionResume.h"
#include "util/Error.h"

#include <QObject>

namespace ts::gui {

SessionRunner::Request SessionSetup::start(SessionPlan plan, const std::shared_ptr<const Dataset>& dataset,
                                           const KernelSpec* spec, const QString& databasePath) {
    SessionRunner::Request request;
    request.plan = std::move(plan);
    const bool kernel = request.plan.measuresKernel();
    request.dataset = kernel ? nullptr : dataset;
    if (request.dataset)
        request.plan.dataset = request.dataset->path.string();
    request.databasePath = databasePath;
    if (kernel && !spec)
        throw Error("No kernel is chosen: pick one of the catalog or open a kernel spec first.");
    if (!kernel && !dataset)
        throw Error("No kernel is chosen: open a replay dataset (File > Open) first.");
    return request;
}

std::vector<Parameter> SessionSetup::parameters(const SessionPlan& plan, const Dataset* dataset,
                                                const KernelSpec* spec) {
    if (plan.measuresKernel())
        return spec->variant(plan.backend)->parameters;
    return dataset->space.parameters();
}

SessionSetup::Resume SessionSetup::resume(const QString& databasePath, std::int64_t sessionId) {
    Resume resume;
    RecordStore store(databasePath.toStdString(), DatabaseAccess::ReadOnly);
    resume.record = SessionResume::resumable(store, sessionId);
    SessionRunner::Request& request = resume.request;
    request.plan = SessionPlan::ofRecord(resume.record);
    PreparedSession::validate(request.plan);
    if (request.plan.measuresKernel()) {
        const KernelSpec spec = loadKernelSpec(request.plan.kernel);
        resume.parameters = spec.variant(request.plan.backend)->parameters;
    } else {
        request.dataset = std::make_shared<const Dataset>(readDataset(request.plan.dataset));
        resume.parameters = request.dataset->space.parameters();
    }
    request.databasePath = databasePath;
    request.resumeSession = sessionId;
    return resume;
}

RunData::Info SessionSetup::startInfo(const SessionPlan& task, const Dataset* dataset,
                                      const KernelSpec* spec) {
    RunData::Info info;
    info.strategy = QString::fromStdString(task.strategy);
    info.label = QObject::tr("%1 seed %2").arg(info.strategy).arg(task.seed);
    info.status = "running";
    info.budget = task.budget;
    if (task.measuresKernel()) {
        info.kernel = QString::fromStdString(spec->name);
        // As the record will store it, so that a reopened run of this size overlays this one.
        try {
            info.problem =
                QString::fromStdString(problemJson(*spec, parseProblemSize(*spec, task.kernel.size)));
        } catch (const Error&) {
            info.problem = QString::fromStdString(task.kernel.size);
        }
        // The device's name, as the records store it, so that the Hardware view finds it in the GPU database.
        const std::string model = task.backend == "cpu" ? CpuInfo::query().model : cudaDeviceName();
        info.device = QString::fromStdString(model.empty() ? task.backend : model);
        return info; // no optimum: the space is not measured in advance
    }
    info.kernel = QString::fromStdString(dataset->kernelName);
    info.device = QString::fromStdString(dataset->deviceName);
    info.optimum = dataset->optimum();
    return info;
}

RunData::Info SessionSetup::recordInfo(const SessionRecord& r, const Dataset* dataset) {
    RunData::Info info;
    info.sessionId = r.id;
    info.strategy = QString::fromStdString(r.strategy);
    info.label = QObject::tr("#%1 %2 seed %3").arg(r.id).arg(info.strategy).arg(r.seed);
    info.kernel = QString::fromStdString(r.kernel);
    info.problem = QString::fromStdString(r.problem);
    info.device = QString::fromStdString(r.device);
    info.status = QString::fromStdString(r.status);
    info.budget = r.budget;
    if (dataset)
        info.optimum = dataset->optimum();
    return info;
}

} // namespace ts::gui
