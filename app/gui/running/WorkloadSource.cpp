#include "running/WorkloadSource.h"

#include "workload/WorkloadFile.h"

#include <QFileInfo>

namespace ts::gui::workloads {

namespace {

WorkloadTaskPlan replayTask(const std::string& name, const std::string& dataset, double weight) {
    WorkloadTaskPlan task;
    task.name = name;
    task.weight = weight;
    task.plan.backend = "replay";
    task.plan.dataset = TUNESCOPE_RESOURCE_DIR "/datasets/" + dataset;
    return task;
}

} // namespace

WorkloadPlan demo() {
    WorkloadPlan plan;
    plan.name = "demo-replay";
    plan.backend = "replay";
    plan.tasks = {replayTask("pnpoly", "pnpoly_RTX_3090.json.gz", 3.0),
                  replayTask("gemm", "gemm_clblast_RTX_3090.json.gz", 1.0),
                  replayTask("conv", "convolution_2021_RTX_3090.json.gz", 0.5)};
    return plan;
}

WorkloadPlan readFile(const QString& path) {
    return WorkloadFile::read(QFileInfo(path).absoluteFilePath().toStdString(), WorkloadDefaults{});
}

} // namespace ts::gui::workloads
