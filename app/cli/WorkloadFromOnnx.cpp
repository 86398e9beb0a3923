#include "Commands.h"

#include "util/Error.h"
#include "util/OutputFile.h"
#if TUNESCOPE_WITH_ONNX
#include "extract/ModelTasks.h"
#include "extract/OnnxModel.h"
#endif

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <memory>
#include <set>
#include <sstream>

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

std::set<std::string> kernelList(const std::string& text) {
    static const std::set<std::string> known{"gemm", "conv2d", "softmax"};
    std::set<std::string> kernels;
    std::stringstream in(text);
    for (std::string k; std::getline(in, k, ',');) {
        if (k.empty())
            continue;
        if (!known.count(k))
            throw Error(fmt::format("--kernels: \"{}\" is not a kernel tasks are made for (gemm, conv2d, softmax).", k));
        kernels.insert(k);
    }
    if (kernels.empty())
        throw Error("--kernels names no kernel (give some of gemm, conv2d, softmax).");
    return kernels;
}

std::map<std::string, std::int64_t> dimList(const std::vector<std::string>& dims) {
    std::map<std::string, std::int64_t> bound;
    for (const std::string& d : dims) {
        const auto eq = d.find('=');
        std::size_t used = 0;
        std::int64_t value = 0;
        try {
            if (eq == std::string::npos || eq == 0)
                throw std::invalid_argument(d);
            value = std::stoll(d.substr(eq + 1), &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || eq + 1 + used != d.size())
            throw Error(fmt::format("--dim \"{}\" is not NAME=VALUE with a whole number.", d));
        if (!bound.emplace(d.substr(0, eq), value).second)
            throw Error(fmt::format("--dim {} is given twice.", d.substr(0, eq)));
    }
    return bound;
}

#if TUNESCOPE_WITH_ONNX
void fromOnnx(const FromOnnxOptions& o) {
    if (o.device != "cpu" && o.device != "cuda")
        throw Error(fmt::format("--device \"{}\" is not cpu or cuda.", o.device));
    const std::set<std::string> kernels = kernelList(o.kernels);
    OnnxModel::Bindings bindings;
    if (o.batch != 0)
        bindings.batch = o.batch;
    bindings.dims = dimList(o.dims);
    OutputFile output(o.output, "workload file");
    output.protect(o.model);
    const OnnxModel model = OnnxModel::read(o.model, bindings);
    const ModelTasks tasks(model, kernels);
    if (tasks.tasks().empty())
        throw Error(fmt::format("The model {} has no operator that {} computes, so there is no workload to "
                                "write.",
                                o.model, fmt::join(kernels, ", ")));
    std::vector<std::string> how{fmt::format("opset {}", model.opset())};
    if (!model.producer().empty())
        how.insert(how.begin(), fmt::format("made by {}", model.producer()));
    if (bindings.batch)
        how.push_back(fmt::format("batch {}", *bindings.batch));
    for (const auto& [dim, value] : bindings.dims)
        how.push_back(fmt::format("{} = {}", dim, value));
    const std::string name = o.name.empty() ? std::filesystem::path(o.model).stem().string() : o.name;
    output.write(tasks.workload(name, o.device, fmt::format("{}", fmt::join(how, ", "))).dump(2) + "\n");
    output.commit();
    fmt::print(stderr, "{} tasks from {} operators of {}:\n", tasks.tasks().size(), tasks.operators(), o.model);
    for (const ModelTasks::Task& task : tasks.tasks())
        fmt::print(stderr, "  {:<8} {:<40} weight {:>6}  (first: {})\n", task.kernel, task.sizeText(), task.weight,
                   task.firstNode);
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
    cmd->add_option("--batch", o->batch, "The first dimension of every model input that the model leaves open");
    cmd->add_option("--dim", o->dims, "An open dimension of the model by name: NAME=VALUE (repeatable)");
    cmd->add_option("--kernels", o->kernels, "Kernels to make tasks of, comma-separated")->capture_default_str();
    cmd->add_option("--device", o->device, "Where the workload is measured: cpu or cuda")->capture_default_str();
    cmd->add_option("--name", o->name, "The workload's name (default: the model file's name)");
    cmd->callback([o] { fromOnnx(*o); });
}

} // namespace ts::cli
