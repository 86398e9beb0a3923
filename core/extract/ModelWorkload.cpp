#include "extract/ModelWorkload.h"

#include "util/Error.h"
#include "util/OutputFile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sstream>
#include <vector>

namespace ts {

std::set<std::string> ModelWorkload::kernelNames() {
    return {"gemm", "conv2d", "softmax"};
}

std::set<std::string> ModelWorkload::parseKernels(const std::string& text) {
    const std::set<std::string> known = kernelNames();
    std::set<std::string> kernels;
    std::stringstream in(text);
    for (std::string k; std::getline(in, k, ',');) {
        if (k.empty())
            continue;
        if (!known.count(k))
            throw Error(fmt::format("--kernels: \"{}\" is not a kernel tasks are made for ({}).", k,
                                    fmt::join(known, ", ")));
        kernels.insert(k);
    }
    if (kernels.empty())
        throw Error(fmt::format("--kernels names no kernel (give some of {}).", fmt::join(known, ", ")));
    return kernels;
}

std::pair<std::string, std::int64_t> ModelWorkload::parseDim(const std::string& text) {
    const auto eq = text.find('=');
    std::size_t used = 0;
    std::int64_t value = 0;
    if (eq != std::string::npos && eq > 0) {
        try {
            value = std::stoll(text.substr(eq + 1), &used);
        } catch (const std::exception&) {
            used = 0;
        }
    }
    if (used == 0 || eq + 1 + used != text.size())
        throw Error(fmt::format("--dim \"{}\" is not NAME=VALUE with a whole number.", text));
    return {text.substr(0, eq), value};
}

ModelWorkload::ModelWorkload(Request request) : m_request(std::move(request)) {
    if (m_request.device != "cpu" && m_request.device != "cuda")
        throw Error(fmt::format("--device \"{}\" is not cpu or cuda.", m_request.device));
    if (m_request.kernels.empty())
        throw Error("No kernel is asked for: give some of gemm, conv2d, softmax.");
    m_model = std::make_unique<OnnxModel>(OnnxModel::read(m_request.model, m_request.bindings));
    m_tasks = std::make_unique<ModelTasks>(*m_model, m_request.kernels);
    if (m_tasks->tasks().empty())
        throw Error(fmt::format("The model {} has no operator that {} computes, so there is no workload to "
                                "write.",
                                m_request.model.string(), fmt::join(m_request.kernels, ", ")));
}

std::string ModelWorkload::fileText() const {
    std::vector<std::string> how;
    if (!m_model->producer().empty())
        how.push_back(fmt::format("made by {}", m_model->producer()));
    how.push_back(fmt::format("opset {}", m_model->opset()));
    if (m_request.bindings.batch)
        how.push_back(fmt::format("batch {}", *m_request.bindings.batch));
    for (const auto& [dim, value] : m_request.bindings.dims)
        how.push_back(fmt::format("{} = {}", dim, value));
    const std::string name = m_request.name.empty() ? m_request.model.stem().string() : m_request.name;
    return m_tasks->workload(name, m_request.device, fmt::format("{}", fmt::join(how, ", "))).dump(2) + "\n";
}

void ModelWorkload::write(const std::string& target) const {
    OutputFile output(target, "workload file");
    output.protect(m_request.model);
    output.write(fileText());
    output.commit();
}

} // namespace ts
