#include "Commands.h"

#include "util/Error.h"
#include "util/OutputFile.h"
#if TUNESCOPE_WITH_ONNX
#include "extract/ModelWorkload.h"
#endif

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>

namespace ts::cli {

namespace {

struct FromOnnxOptions {
    std::string model;
    std::string output;
    std::string name;
    std::string device = "cpu";
    std::string kernels = "gemm,conv2d,softmax";
    std::int64_t batch = 0;
    std::vector<std::string> dims;
};

#if TUNESCOPE_WITH_ONNX
void fromOnnx(const FromOnnxOptions& o) {
    ModelWorkload::Request request;
    request.model = o.model;
    request.kernels = ModelWorkload::parseKernels(o.kernels);
    request.device = o.device;
    request.name = o.name;
    if (o.batch != 0)
        request.bindings.batch = o.batch;
    for (const std::string& text : o.dims) {
        auto [dim, value] = ModelWorkload::parseDim(text);
        if (!request.bindings.dims.emplace(dim, value).second)
            throw Error(fmt::format("--dim {} is given twice.", dim));
    }
    OutputFile(o.output, "workload file").protect(o.model); // before the model is read
    const ModelWorkload workload(request);
    workload.write(o.output);
    const ModelTasks& tasks = workload.tasks();
    fmt::print(stderr, "{} tasks from {} operators of {}:\n", tasks.tasks().size(), tasks.operators(),
               o.model);
    for (const ModelTasks::Task& task : tasks.tasks())
        fmt::print(stderr, "  {:<8} {:<40} weight {:>6}  (first: {})\n", task.kernel, task.sizeText(),
                   task.weight, task.firstNode);
    if (!tasks.leftOut().empty())
        fmt::print(stderr, "Left out:\n");
    for (const ModelTasks::LeftOut& l : tasks.leftOut())
        fmt::print(stderr, "  {:<24} x{:<5} {}\n", l.opType, l.count, l.reason);
}
#else
void fromOnnx(const FromOnnxOptions&) {
    throw Error("This build of Tunescope reads no ONNX models: install libonnx-dev and build again.");
}
#endif

} // namespace

void addWorkloadFromOnnx(CLI::App& workload) {
    auto o = std::make_shared<FromOnnxOptions>();
    CLI::App* cmd = workload.add_subcommand(
        "from-onnx", "Write a workload of the operators of an ONNX model that our kernels compute");
    cmd->add_option("model", o->model, "ONNX model file (.onnx)")->required();
    cmd->add_option("-o,--output", o->output, "Workload file to write (- for standard output)")->required();
    cmd->add_option("--batch", o->batch,
                    "The first dimension of every model input that the model leaves open");
    cmd->add_option("--dim", o->dims, "An open dimension of the model by name: NAME=VALUE (repeatable)");
    cmd->add_option("--kernels", o->kernels, "Kernels to make tasks of, comma-separated")
        ->capture_default_str();
    cmd->add_option("--device", o->device, "Where the workload is measured: cpu or cuda")
        ->capture_default_str();
    cmd->add_option("--name", o->name, "The workload's name (default: the model file's name)");
    cmd->callback([o] { fromOnnx(*o); });
}

} // namespace ts::cli
