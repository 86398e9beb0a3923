#include "extract/OperatorKernels.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>

namespace ts {

namespace {

// Sizes and call counts beyond this are no kernel's (and a hostile model's dimensions must not overflow).
constexpr std::int64_t kLargest = std::int64_t{1} << 40;

// The product of dims[from, to), or -1 past kLargest.
std::int64_t product(const std::vector<std::int64_t>& dims, std::size_t from, std::size_t to) {
    std::int64_t p = 1;
    for (std::size_t i = from; i < to; ++i)
        if (dims[i] < 0 || __builtin_mul_overflow(p, dims[i], &p) || p > kLargest)
            return -1;
    return p;
}

ModelOperator leftOut(std::string reason) {
    ModelOperator op;
    op.reason = std::move(reason);
    return op;
}

// The values of the first `count` inputs, or the operator left out: naming the open dimensions when the
// model leaves some open, saying the shape is unknown otherwise.
std::optional<ModelOperator> missingShapes(const ModelNode& node, std::size_t count,
                                           std::vector<std::vector<std::int64_t>>& values) {
    ModelOperator missing = leftOut("");
    for (std::size_t i = 0; i < count; ++i) {
        if (i >= node.inputs.size() || !node.inputs[i].known) {
            missing.reason = "its input shapes are unknown after shape inference";
            continue;
        }
        if (auto v = node.inputs[i].values()) {
            values.push_back(*v);
            continue;
        }
        for (const ModelDim& dim : node.inputs[i].dims)
            if (!dim.value) {
                if (dim.symbol.empty())
                    missing.reason = "its input shapes are unknown after shape inference";
                else if (std::find(missing.openDims.begin(), missing.openDims.end(), dim.symbol) ==
                         missing.openDims.end())
                    missing.openDims.push_back(dim.symbol);
            }
    }
    if (!missing.openDims.empty() && missing.reason.empty())
        missing.reason =
            fmt::format("its shape depends on the open dimension(s) {}", fmt::join(missing.openDims, ", "));
    if (missing.reason.empty())
        return std::nullopt;
    return missing;
}

ModelOperator gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t calls) {
    ModelOperator op;
    op.kernel = "gemm";
    op.size = {{"M", m}, {"N", n}, {"K", k}};
    op.calls = calls;
    return op;
}

ModelOperator matMul(const ModelNode& node) {
    std::vector<std::vector<std::int64_t>> v;
    if (auto missing = missingShapes(node, 2, v))
        return *missing;
    std::vector<std::int64_t> a = v[0], b = v[1];
    if (a.empty() || b.empty())
        return leftOut("a scalar operand");
    if (a.size() == 1)
        a.insert(a.begin(), 1); // a vector is a 1 x K matrix
    if (b.size() == 1)
        b.push_back(1); // and a K x 1 one on the right
    const std::int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
    if (b[b.size() - 2] != k)
        return leftOut(fmt::format("inner dimensions {} and {} differ", k, b[b.size() - 2]));
    if (b.size() == 2) // a batch of rows against one matrix: one gemm of all the rows
        return gemm(product(a, 0, a.size() - 1), n, k, 1);
    // Both batched: the batch dimensions broadcast, each element one gemm.
    const std::size_t rank = std::max(a.size(), b.size()) - 2;
    std::int64_t calls = 1;
    for (std::size_t i = 0; i < rank; ++i) {
        const std::size_t fromA = a.size() - 2, fromB = b.size() - 2;
        const std::int64_t da = i < rank - fromA ? 1 : a[i - (rank - fromA)];
        const std::int64_t db = i < rank - fromB ? 1 : b[i - (rank - fromB)];
        if (da != db && da != 1 && db != 1)
            return leftOut(fmt::format("batch dimensions {} and {} do not broadcast", da, db));
        if (__builtin_mul_overflow(calls, std::max(da, db), &calls) || calls > kLargest)
            return leftOut("batch dimensions beyond 2^40 calls");
    }
    return gemm(m, n, k, calls);
}

ModelOperator gemmOp(const ModelNode& node) {
    std::vector<std::vector<std::int64_t>> v;
    if (auto missing = missingShapes(node, 2, v))
        return *missing;
    if (v[0].size() != 2 || v[1].size() != 2)
        return leftOut("Gemm operands that are not matrices");
    const bool ta = node.intOr("transA", 0) != 0, tb = node.intOr("transB", 0) != 0;
    const std::int64_t m = ta ? v[0][1] : v[0][0], k = ta ? v[0][0] : v[0][1];
    const std::int64_t n = tb ? v[1][0] : v[1][1];
    return gemm(m, n, k, 1);
}

ModelOperator conv(const ModelNode& node) {
    std::vector<std::vector<std::int64_t>> v;
    if (auto missing = missingShapes(node, 2, v))
        return *missing;
    const std::vector<std::int64_t>& x = v[0];
    const std::vector<std::int64_t>& w = v[1];
    if (x.size() != 4 || w.size() != 4)
        return leftOut(fmt::format("a {}-D convolution (conv2d is 2-D)", x.size() >= 2 ? x.size() - 2 : 0));
    auto all = [&](const char* name, std::int64_t value) {
        auto it = node.ints.find(name);
        return it == node.ints.end() ||
               std::all_of(it->second.begin(), it->second.end(), [&](std::int64_t s) { return s == value; });
    };
    if (!all("strides", 1))
        return leftOut(
            fmt::format("strides {} (conv2d has stride 1)", fmt::join(node.ints.at("strides"), "x")));
    if (!all("dilations", 1))
        return leftOut(
            fmt::format("dilations {} (conv2d is not dilated)", fmt::join(node.ints.at("dilations"), "x")));
    if (node.intOr("group", 1) != 1)
        return leftOut(fmt::format("{} groups (conv2d has one)", node.intOr("group", 1)));
    const std::int64_t r = w[2], s = w[3];
    std::int64_t top = 0, left = 0, bottom = 0, right = 0;
    const auto pad = node.strings.find("auto_pad");
    const std::string autoPad = pad == node.strings.end() ? "NOTSET" : pad->second;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        const bool lower = autoPad == "SAME_LOWER";
        top = lower ? r / 2 : (r - 1) / 2;
        bottom = r - 1 - top;
        left = lower ? s / 2 : (s - 1) / 2;
        right = s - 1 - left;
    } else if (autoPad == "NOTSET") {
        if (auto pads = node.ints.find("pads"); pads != node.ints.end()) {
            if (pads->second.size() != 4)
                return leftOut("pads that are not those of a 2-D convolution");
            top = pads->second[0];
            left = pads->second[1];
            bottom = pads->second[2];
            right = pads->second[3];
        }
    } else if (autoPad != "VALID") {
        return leftOut(fmt::format("auto_pad {}", autoPad));
    }
    for (std::int64_t p : {top, left, bottom, right})
        if (p < 0 || p > kLargest)
            return leftOut(fmt::format("padding {} out of range", p));
    if (w[1] != x[1])
        return leftOut(fmt::format("filter channels {} and input channels {} differ", w[1], x[1]));
    ModelOperator op;
    op.kernel = "conv2d";
    op.size = {{"N", x[0]}, {"C", x[1]}, {"H", x[2] + top + bottom}, {"W", x[3] + left + right}, {"K", w[0]},
               {"R", r},    {"S", s}};
    return op;
}

ModelOperator softmax(const ModelNode& node, std::int64_t opset) {
    std::vector<std::vector<std::int64_t>> v;
    if (auto missing = missingShapes(node, 1, v))
        return *missing;
    const std::vector<std::int64_t>& x = v[0];
    if (x.empty())
        return leftOut("a scalar input");
    const auto rank = static_cast<std::int64_t>(x.size());
    std::int64_t axis = node.intOr("axis", opset >= 13 ? -1 : 1);
    if (axis < 0)
        axis += rank;
    if (axis < 0 || axis >= rank)
        return leftOut(fmt::format("axis {} of a rank-{} input", node.intOr("axis", 0), rank));
    // Since opset 13 the axis is one axis; before, the input is flattened to 2-D at the axis.
    if (opset >= 13 && axis != rank - 1)
        return leftOut(
            fmt::format("a softmax over axis {} of {} (the softmax kernel normalises rows)", axis, rank));
    ModelOperator op;
    op.kernel = "softmax";
    const auto at = static_cast<std::size_t>(axis);
    op.size = {{"rows", product(x, 0, at)}, {"cols", product(x, at, x.size())}};
    return op;
}

} // namespace

ModelOperator OperatorKernels::map(const ModelNode& node, std::int64_t opset) {
    ModelOperator op = mapKnown(node, opset);
    if (!op.mapped())
        return op;
    const bool inRange = op.calls >= 1 && op.calls <= kLargest &&
                         std::all_of(op.size.begin(), op.size.end(),
                                     [](const auto& s) { return s.second >= 1 && s.second <= kLargest; });
    return inRange ? op : leftOut("a size or call count out of range (empty, or beyond 2^40)");
}

ModelOperator OperatorKernels::mapKnown(const ModelNode& node, std::int64_t opset) {
    if (!node.domain.empty())
        return leftOut(fmt::format("an operator of the domain {}", node.domain));
    if (node.opType == "MatMul")
        return matMul(node);
    if (node.opType == "Gemm")
        return gemmOp(node);
    if (node.opType == "Conv")
        return conv(node);
    if (node.opType == "Softmax")
        return softmax(node, opset);
    return leftOut("no kernel of the catalog computes it");
}

} // namespace ts
