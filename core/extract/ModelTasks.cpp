#include "extract/ModelTasks.h"

#include "extract/OperatorKernels.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ts {

std::string ModelTasks::Task::name() const {
    std::vector<std::string> parts;
    for (const auto& [dim, value] : size)
        parts.push_back(fmt::format("{}{}", dim, value));
    return fmt::format("{}.{}", kernel, fmt::join(parts, "_"));
}

std::string ModelTasks::Task::sizeText() const {
    std::vector<std::string> parts;
    for (const auto& [dim, value] : size)
        parts.push_back(fmt::format("{}={}", dim, value));
    return fmt::format("{}", fmt::join(parts, ","));
}

ModelTasks::ModelTasks(const OnnxModel& model, const std::set<std::string>& kernels)
    : m_modelName(model.path().filename().string()), m_operators(model.nodes().size()) {
    std::set<std::string> open;
    std::set<std::string> needing;
    for (const ModelNode& node : model.nodes()) {
        const ModelOperator op = OperatorKernels::map(node, model.opset());
        if (!op.openDims.empty()) {
            open.insert(op.openDims.begin(), op.openDims.end());
            needing.insert(node.opType);
            continue;
        }
        if (!op.mapped())
            leave(node.opType, op.reason);
        else if (!kernels.empty() && !kernels.count(op.kernel))
            leave(node.opType, fmt::format("the {} kernel is not among those asked for", op.kernel));
        else
            add(op, node.name);
    }
    if (!open.empty())
        throw Error(
            fmt::format("The model {} leaves the dimension(s) {} open, and its {} operators need them: "
                        "give each with --dim NAME=VALUE (--batch N binds the inputs' first "
                        "dimension).",
                        model.path().string(), fmt::join(open, ", "), fmt::join(needing, ", ")));
}

void ModelTasks::add(const ModelOperator& op, const std::string& node) {
    for (Task& task : m_tasks)
        if (task.kernel == op.kernel && task.size == op.size) {
            task.weight += op.calls;
            return;
        }
    m_tasks.push_back({op.kernel, op.size, op.calls, node});
}

void ModelTasks::leave(const std::string& opType, const std::string& reason) {
    for (LeftOut& l : m_leftOut)
        if (l.opType == opType && l.reason == reason) {
            ++l.count;
            return;
        }
    m_leftOut.push_back({opType, reason, 1});
}

nlohmann::ordered_json ModelTasks::workload(const std::string& name, const std::string& device,
                                            const std::string& how) const {
    std::vector<std::string> left;
    for (const LeftOut& l : m_leftOut)
        left.push_back(fmt::format("{} x{} ({})", l.opType, l.count, l.reason));
    std::string source = fmt::format("Extracted from the ONNX model {} ({}): {} tasks from {} operators.",
                                     m_modelName, how, m_tasks.size(), m_operators);
    if (!left.empty())
        source += fmt::format(" Left out: {}.", fmt::join(left, "; "));
    nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
    for (const Task& task : m_tasks) {
        nlohmann::ordered_json size = nlohmann::ordered_json::object();
        for (const auto& [dim, value] : task.size)
            size[dim] = value;
        tasks.push_back(
            {{"name", task.name()}, {"kernel", task.kernel}, {"size", size}, {"weight", task.weight}});
    }
    return {{"name", name}, {"device", device}, {"source", source}, {"tasks", tasks}};
}

} // namespace ts
