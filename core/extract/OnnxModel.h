#pragma once

#include "extract/ModelNode.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ts {

// An ONNX model read with ONNX's own library (Debian's libonnx-dev): parsed, checked with ONNX's checker,
// its open dimensions bound, and shapes inferred through the whole graph by ONNX's shape inference (with
// data propagation, so Shape -> Gather -> Concat -> Reshape chains of exported models carry shapes). Weights
// stored as external data are never read: shapes need only their dimensions. Core's only user of ONNX; its
// types stay inside this module's sources.
class OnnxModel {
public:
    struct Bindings {
        // The first dimension of every graph input when the model leaves it open.
        std::optional<std::int64_t> batch;
        // Open dimensions by the model's name for them ("sequence" = 128).
        std::map<std::string, std::int64_t> dims;
    };

    // Throws Error, one sentence naming the file: missing or unreadable, not an ONNX model (truncated or
    // another format), refused by the checker, a binding for a dimension the model does not have or of a
    // value below 1, or shape inference failing.
    static OnnxModel read(const std::filesystem::path& path, const Bindings& bindings = {});

    const std::filesystem::path& path() const { return m_path; }
    const std::string& graphName() const { return m_graphName; }
    const std::string& producer() const { return m_producer; }
    // The version of ONNX's default operator set the model imports (defaults differ between versions).
    std::int64_t opset() const { return m_opset; }
    // The main graph's operators in graph order (subgraphs of If, Loop and Scan are not entered).
    const std::vector<ModelNode>& nodes() const { return m_nodes; }
    // The names of the dimensions the graph inputs leave open after binding.
    const std::set<std::string>& openDims() const { return m_openDims; }

private:
    std::filesystem::path m_path;
    std::string m_graphName;
    std::string m_producer;
    std::int64_t m_opset = 0;
    std::vector<ModelNode> m_nodes;
    std::set<std::string> m_openDims;
};

} // namespace ts
