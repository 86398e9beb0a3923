#pragma once

#include "extract/ModelOperator.h"
#include "extract/OnnxModel.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace ts {

// The tasks of a model (as TVM's extract_tasks gives them): one per distinct kernel and size among its
// operators, weighted by the kernel calls per inference, and every operator left out counted with its reason,
// so nothing is dropped silently.
class ModelTasks {
public:
    struct Task {
        std::string kernel;
        std::vector<std::pair<std::string, std::int64_t>> size;
        std::int64_t weight = 0;      // kernel calls per inference
        std::string firstNode;        // the first operator of the model with this task
        std::string name() const;     // "gemm.M128_N2304_K768"
        std::string sizeText() const; // "M=128,N=2304,K=768"
    };
    struct LeftOut {
        std::string opType;
        std::string reason;
        std::int64_t count = 0;
    };

    // `kernels`: the kernels to make tasks of (empty: every kernel); an operator of another kernel is left
    // out. Throws Error, one sentence, when operators the selection covers depend on open dimensions of the
    // model (naming them and how to bind them).
    ModelTasks(const OnnxModel& model, const std::set<std::string>& kernels = {});

    const std::vector<Task>& tasks() const { return m_tasks; }
    const std::vector<LeftOut>& leftOut() const { return m_leftOut; }
    std::size_t operators() const { return m_operators; }

    // A workload file (docs/workloads.md) of the tasks on `device`, with a `source` that says where they
    // came from and what was left out.
    nlohmann::ordered_json workload(const std::string& name, const std::string& device,
                                    const std::string& how) const;

private:
    void add(const ModelOperator& op, const std::string& node);
    void leave(const std::string& opType, const std::string& reason);

    std::string m_modelName;
    std::vector<Task> m_tasks;
    std::vector<LeftOut> m_leftOut;
    std::size_t m_operators = 0;
};

} // namespace ts
