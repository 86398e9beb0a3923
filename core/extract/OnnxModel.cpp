#include "extract/OnnxModel.h"

#include "util/Error.h"

#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <unordered_map>

namespace ts {

namespace {

// The first line of an ONNX library message, without its trailing "==> Context: ..." part.
std::string firstLine(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    if (auto context = line.find("==> Context:"); context != std::string::npos)
        line = line.substr(0, context);
    while (!line.empty() && (line.back() == ' ' || line.back() == '.'))
        line.pop_back();
    return line;
}

onnx::ModelProto parse(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error(fmt::format("The model {} does not exist or is not a file.", path.string()));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(fmt::format("The model {} cannot be read.", path.string()));
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    onnx::ModelProto model;
    if (bytes.empty() || !model.ParseFromString(bytes) || !model.has_graph())
        throw Error(fmt::format("The model {} is not an ONNX model (it does not parse as one: truncated, or "
                                "another kind of file).",
                                path.string()));
    return model;
}

// The path's own check, so that external data is looked for beside the model, not in the working folder.
void check(const std::filesystem::path& path) {
    try {
        onnx::checker::check_model(path.string());
    } catch (const std::exception& e) {
        throw Error(
            fmt::format("The model {} is not a valid ONNX model: {}.", path.string(), firstLine(e.what())));
    }
}

// Every open dimension named `symbol` in the graph's inputs, outputs and stored shapes gets `value`.
std::size_t bindSymbol(onnx::GraphProto& graph, const std::string& symbol, std::int64_t value) {
    std::size_t bound = 0;
    auto bindIn = [&](onnx::ValueInfoProto& info) {
        if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape())
            return;
        for (auto& dim : *info.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
            if (dim.has_dim_param() && dim.dim_param() == symbol) {
                dim.set_dim_value(value);
                ++bound;
            }
    };
    for (auto& info : *graph.mutable_input())
        bindIn(info);
    for (auto& info : *graph.mutable_output())
        bindIn(info);
    for (auto& info : *graph.mutable_value_info())
        bindIn(info);
    return bound;
}

void bind(onnx::ModelProto& model, const OnnxModel::Bindings& bindings, const std::filesystem::path& path) {
    onnx::GraphProto& graph = *model.mutable_graph();
    for (const auto& [symbol, value] : bindings.dims) {
        if (value < 1)
            throw Error(
                fmt::format("--dim {}={}: a dimension is a whole number of 1 or more.", symbol, value));
        if (bindSymbol(graph, symbol, value) == 0)
            throw Error(fmt::format("The model {} has no open dimension named \"{}\" (--dim {}={}).",
                                    path.string(), symbol, symbol, value));
    }
    if (!bindings.batch)
        return;
    if (*bindings.batch < 1)
        throw Error(fmt::format("--batch {}: a batch is a whole number of 1 or more.", *bindings.batch));
    std::set<std::string> initializers;
    for (const auto& tensor : graph.initializer())
        initializers.insert(tensor.name());
    for (auto& input : *graph.mutable_input()) {
        if (initializers.count(input.name()) || !input.type().has_tensor_type() ||
            !input.type().tensor_type().has_shape() || input.type().tensor_type().shape().dim_size() == 0)
            continue;
        auto& first = *input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
        if (first.has_dim_value())
            continue;
        if (first.has_dim_param()) {
            const std::string symbol = first.dim_param(); // a copy: binding clears the field it lives in
            bindSymbol(graph, symbol, *bindings.batch);
        }
        first.set_dim_value(*bindings.batch);
    }
}

ModelShape shapeOf(const onnx::TypeProto& type) {
    ModelShape shape;
    if (!type.has_tensor_type() || !type.tensor_type().has_shape())
        return shape;
    shape.known = true;
    for (const auto& dim : type.tensor_type().shape().dim()) {
        ModelDim d;
        if (dim.has_dim_value() && dim.dim_value() >= 0)
            d.value = dim.dim_value();
        else if (dim.has_dim_param())
            d.symbol = dim.dim_param();
        shape.dims.push_back(d);
    }
    return shape;
}

ModelNode nodeOf(const onnx::NodeProto& node, std::size_t position,
                 const std::unordered_map<std::string, ModelShape>& shapes) {
    ModelNode n;
    n.opType = node.op_type();
    n.domain = node.domain() == "ai.onnx" ? "" : node.domain();
    n.name = node.name().empty() ? fmt::format("{} #{}", node.op_type(), position + 1) : node.name();
    for (const std::string& input : node.input()) {
        auto it = shapes.find(input);
        n.inputs.push_back(input.empty() || it == shapes.end() ? ModelShape{} : it->second);
    }
    for (const auto& attribute : node.attribute()) {
        if (attribute.type() == onnx::AttributeProto::INT)
            n.ints[attribute.name()] = {attribute.i()};
        else if (attribute.type() == onnx::AttributeProto::INTS)
            n.ints[attribute.name()] = {attribute.ints().begin(), attribute.ints().end()};
        else if (attribute.type() == onnx::AttributeProto::STRING)
            n.strings[attribute.name()] = attribute.s();
    }
    return n;
}

} // namespace

OnnxModel OnnxModel::read(const std::filesystem::path& path, const Bindings& bindings) {
    onnx::ModelProto model = parse(path);
    check(path);
    bind(model, bindings, path);
    try {
        onnx::ShapeInferenceOptions options{/*check_type=*/false, /*error_mode=*/1,
                                            /*enable_data_propagation=*/true};
        onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
        throw Error(fmt::format("The model {}: ONNX shape inference failed: {}.", path.string(),
                                firstLine(e.what())));
    }
    OnnxModel result;
    result.m_path = path;
    const onnx::GraphProto& graph = model.graph();
    result.m_graphName = graph.name();
    result.m_producer = model.producer_name();
    for (const auto& opset : model.opset_import())
        if (opset.domain().empty() || opset.domain() == "ai.onnx")
            result.m_opset = opset.version();
    std::unordered_map<std::string, ModelShape> shapes;
    for (const auto& tensor : graph.initializer()) {
        ModelShape shape{true, {}};
        for (std::int64_t d : tensor.dims())
            shape.dims.push_back({d, ""});
        shapes[tensor.name()] = shape;
    }
    for (const auto* list : {&graph.input(), &graph.value_info(), &graph.output()})
        for (const auto& info : *list)
            if (!shapes.count(info.name()) || !shapes[info.name()].known)
                shapes[info.name()] = shapeOf(info.type());
    for (const auto& input : graph.input())
        for (const ModelDim& dim : shapeOf(input.type()).dims)
            if (!dim.value && !dim.symbol.empty())
                result.m_openDims.insert(dim.symbol);
    result.m_nodes.reserve(static_cast<std::size_t>(graph.node_size()));
    for (int i = 0; i < graph.node_size(); ++i)
        result.m_nodes.push_back(nodeOf(graph.node(i), static_cast<std::size_t>(i), shapes));
    return result;
}

} // namespace ts
