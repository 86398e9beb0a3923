#include "WorkloadSource.h"

#include "util/BoundedJson.h"
#include "util/Error.h"

#include <QFileInfo>
#include <fmt/format.h>
#include <fstream>

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
    const std::string file = QFileInfo(path).absoluteFilePath().toStdString();
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw Error(fmt::format("Cannot read the workload file {}.", file));
    const nlohmann::json json = parseBoundedJson(in, file);
    if (json.is_discarded() || !json.is_object())
        throw Error(fmt::format("The workload file {} is not a JSON object.", file));
    WorkloadPlan plan = WorkloadPlan::fromJson(json, file);
    plan.file = file;
    return plan;
}

} // namespace ts::gui::workloads
