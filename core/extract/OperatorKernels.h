#pragma once

#include "extract/ModelNode.h"
#include "extract/ModelOperator.h"

#include <cstdint>

namespace ts {

// Which kernel of the catalog computes an ONNX operator, at which size:
// - MatMul (NumPy semantics): gemm M x K times K x N; batch dimensions of the first operand fold into M when
//   the second is a matrix, otherwise (both batched, broadcast) each batch element is its own gemm call;
// - Gemm: gemm with M, N, K read through transA and transB;
// - Conv over 2-D images: conv2d (stride 1, no padding, NCHW / KCRS) when strides and dilations are 1 and
//   there is one group, with the padding added to the input (H + top + bottom, W + left + right);
// - Softmax over the last axis (or, before opset 13, over the flattened trailing axes): softmax rows x cols.
// Every other operator, and these at other attributes, is left out with its reason.
class OperatorKernels {
public:
    static ModelOperator map(const ModelNode& node, std::int64_t opset);

private:
    static ModelOperator mapKnown(const ModelNode& node, std::int64_t opset);
};

} // namespace ts
