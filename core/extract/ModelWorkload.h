#pragma once

#include "extract/ModelTasks.h"
#include "extract/OnnxModel.h"

#include <filesystem>
#include <memory>
#include <set>
#include <string>

namespace ts {

// A workload file made from a user's ONNX model: what `workload from-onnx` and the window's File > New
// workload from model... both run, so the two give the same file.
class ModelWorkload {
public:
    struct Request {
        std::filesystem::path model;
        OnnxModel::Bindings bindings;
        std::set<std::string> kernels = kernelNames(); // the kernels to make tasks of
        std::string device = "cpu";                    // "cpu" or "cuda"
        std::string name;                              // empty: the model file's name
    };

    // The kernels tasks are made for: gemm, conv2d, softmax.
    static std::set<std::string> kernelNames();
    // "gemm,conv2d" as a set; throws Error naming a kernel that is not one of kernelNames(), or none.
    static std::set<std::string> parseKernels(const std::string& text);
    // "NAME=VALUE" as a binding; throws Error naming the text when it is not one.
    static std::pair<std::string, std::int64_t> parseDim(const std::string& text);

    // Reads the model and finds its tasks. Throws Error, one sentence: a bad request (device, kernels), a
    // model that cannot be read (OnnxModel::read), open dimensions (ModelTasks), or no task at all.
    explicit ModelWorkload(Request request);

    const ModelTasks& tasks() const { return *m_tasks; }
    const OnnxModel& model() const { return *m_model; }
    // The workload file's JSON.
    std::string fileText() const;
    // Writes the file to `target` ("-": standard output), never over the model; throws Error naming it.
    void write(const std::string& target) const;

private:
    Request m_request;
    std::unique_ptr<OnnxModel> m_model;
    std::unique_ptr<ModelTasks> m_tasks;
};

} // namespace ts
