#!/usr/bin/python3
"""Writes the ONNX test models of tests/data/onnx/ with Debian's python3-onnx (apt-get install python3-onnx),
and beside each the tasks `workload from-onnx` must find in it, counted here from how the model is built
(never by reading it back). Run it again after changing it; the outputs are committed.

    scripts/make_onnx_models.py [OUTDIR]      (default: tests/data/onnx)

Small models (weights as initializers, as exporters write them): a BERT-style encoder layer, a ResNet-style
pair of bottleneck blocks, a model with dynamic axes, one with its weights in an external data file, and a
truncated file. Full-size models with the published dimensions of the shipped workloads (BERT-base, ResNet-50;
their weights are graph inputs, so the files hold shapes and no data): resources/workloads/*.json must agree.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Graph:
    def __init__(self, weights_as_inputs=False, seed=0):
        self.nodes, self.inits, self.inputs = [], [], []
        self.count = 0
        self.weights_as_inputs = weights_as_inputs
        self.rng = np.random.default_rng(seed)

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, shape, prefix="w"):
        n = self.name(prefix)
        if self.weights_as_inputs:
            self.inputs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, list(shape)))
        else:
            data = (self.rng.standard_normal(shape) * 0.02).astype(np.float32)
            self.inits.append(numpy_helper.from_array(data, n))
        return n

    def const(self, values, dtype=np.int64):
        n = self.name("c")
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=dtype), n))
        return n

    def op(self, op_type, inputs, node_name=None, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=node_name or out, **attrs))
        return out

    def model(self, name, graph_inputs, output, output_shape):
        out = helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)
        graph = helper.make_graph(self.nodes, name, graph_inputs + self.inputs, [out], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="tunescope make_onnx_models.py")
        onnx.checker.check_model(model)
        return model


class Tasks:
    """The expected tasks: (kernel, size) -> weight, in order of first occurrence."""

    def __init__(self):
        self.order, self.weight = [], {}

    def add(self, kernel, size, calls=1):
        key = (kernel, tuple(size.items()))
        if key not in self.weight:
            self.order.append(key)
            self.weight[key] = 0
        self.weight[key] += calls

    def gemm(self, m, n, k, calls=1):
        self.add("gemm", {"M": m, "N": n, "K": k}, calls)

    def conv(self, n, c, h, w, k, r, s):
        self.add("conv2d", {"N": n, "C": c, "H": h, "W": w, "K": k, "R": r, "S": s})

    def json(self, kernels=None, **extra):
        """The tasks of `kernels` (all by default), with `extra` keys."""
        tasks = [{"kernel": k, "size": dict(s), "weight": self.weight[(k, s)]} for k, s in self.order
                 if kernels is None or k in kernels]
        return dict(extra, tasks=tasks)


def encoder_layer(g, t, x, batch, seq, hidden, heads, ffn, fused_qkv, dynamic_reshape):
    """One BERT encoder layer on x [batch, seq, hidden], as Hugging Face's BertLayer computes it."""
    d = hidden // heads
    rows = batch * seq

    def linear(inp, k, n):
        t.gemm(rows, n, k)
        return g.op("Add", [g.op("MatMul", [inp, g.weight([k, n])]), g.weight([n], "b")])

    def split_heads(inp):
        if dynamic_reshape:  # the exporter's Shape -> Gather -> Concat -> Reshape chain
            shape = g.op("Shape", [inp])
            b = g.op("Gather", [shape, g.const([0])], axis=0)
            s = g.op("Gather", [shape, g.const([1])], axis=0)
            target = g.op("Concat", [b, s, g.const([heads]), g.const([d])], axis=0)
        else:
            target = g.const([0, 0, heads, d])
        return g.op("Transpose", [g.op("Reshape", [inp, target])], perm=[0, 2, 1, 3])

    if fused_qkv:
        qkv = linear(x, hidden, 3 * hidden)
        q, k, v = [g.name("split") for _ in range(3)]
        g.nodes.append(helper.make_node("Split", [qkv, g.const([hidden] * 3)], [q, k, v], axis=2,
                                        name=g.name("split_qkv")))
    else:
        q, k, v = linear(x, hidden, hidden), linear(x, hidden, hidden), linear(x, hidden, hidden)
    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
    scores = g.op("MatMul", [q, kt])
    t.gemm(seq, seq, d, batch * heads)
    scaled = g.op("Div", [scores, g.const([float(np.sqrt(d))], np.float32)])
    probs = g.op("Softmax", [scaled], axis=-1)
    t.add("softmax", {"rows": batch * heads * seq, "cols": seq})
    context = g.op("MatMul", [probs, v])
    t.gemm(seq, d, seq, batch * heads)
    merged = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), g.const([0, 0, hidden])])
    attn = linear(merged, hidden, hidden)
    x = g.op("LayerNormalization", [g.op("Add", [attn, x]), g.weight([hidden], "ln"), g.weight([hidden], "ln")],
             axis=-1)
    up = linear(x, hidden, ffn)
    gelu = g.op("Mul", [g.op("Mul", [up, g.op("Add", [g.op("Erf", [g.op("Div", [up, g.const([1.4142135], np.float32)])]),
                                                     g.const([1.0], np.float32)])]), g.const([0.5], np.float32)])
    down = linear(gelu, ffn, hidden)
    return g.op("LayerNormalization", [g.op("Add", [down, x]), g.weight([hidden], "ln"), g.weight([hidden], "ln")],
                axis=-1)


def encoder(layers, batch, seq, hidden, heads, ffn, fused_qkv, weights_as_inputs, batch_dim, dynamic_reshape):
    g, t = Graph(weights_as_inputs), Tasks()
    x = helper.make_tensor_value_info("tokens", TensorProto.FLOAT, [batch_dim, seq, hidden])
    h = "tokens"
    for _ in range(layers):
        h = encoder_layer(g, t, h, batch, seq, hidden, heads, ffn, fused_qkv, dynamic_reshape)
    return g.model("encoder", [x], h, [batch_dim, seq, hidden]), t


def conv(g, t, x, n, c, h, w, k, r, stride, left, counted):
    """A convolution on x [n, c, h, w] with a k x c x r x r filter, padding r // 2; returns (out, out_hw)."""
    pad = r // 2
    out = g.op("Conv", [x, g.weight([k, c, r, r])], strides=[stride, stride], pads=[pad] * 4)
    if stride == 1:
        t.conv(n, c, h + 2 * pad, w + 2 * pad, k, r, r)
    else:
        left[f"Conv strides {stride}x{stride}"] = left.get(f"Conv strides {stride}x{stride}", 0) + 1
    counted["Conv"] = counted.get("Conv", 0) + 1
    return out, (h + 2 * pad - r) // stride + 1


def bottleneck(g, t, x, n, c, hw, width, stride, project, left, counted):
    """A torchvision v1.5 bottleneck (stride on the 3x3), batch norm folded into the convolutions."""
    a, hw1 = conv(g, t, x, n, c, hw, hw, width, 1, 1, left, counted)
    a = g.op("Relu", [a])
    b, hw2 = conv(g, t, a, n, width, hw1, hw1, width, 3, stride, left, counted)
    b = g.op("Relu", [b])
    e, _ = conv(g, t, b, n, width, hw2, hw2, 4 * width, 1, 1, left, counted)
    short = x
    if project:
        short, _ = conv(g, t, x, n, c, hw, hw, 4 * width, 1, stride, left, counted)
    return g.op("Relu", [g.op("Add", [e, short])]), hw2


def resnet(stages, stem, classes, weights_as_inputs, hw_in, base):
    g, t = Graph(weights_as_inputs), Tasks()
    left, counted = {}, {}
    x = helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3 if stem else base, hw_in, hw_in])
    h, c, hw = "image", 3 if stem else base, hw_in
    if stem:
        h, hw = conv(g, t, h, 1, 3, hw, hw, base, 7, 2, left, counted)
        h = g.op("MaxPool", [g.op("Relu", [h])], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
        hw, c = (hw + 2 - 3) // 2 + 1, base
    for stage, (blocks, width) in enumerate(stages):
        for block in range(blocks):
            stride = 2 if stage > 0 and block == 0 else 1
            h, hw = bottleneck(g, t, h, 1, c, hw, width, stride, block == 0, left, counted)
            c = 4 * width
    flat = g.op("Flatten", [g.op("GlobalAveragePool", [h])])
    out = g.op("Gemm", [flat, g.weight([classes, c]), g.weight([classes], "b")], transB=1)
    t.gemm(1, classes, c)
    return g.model("resnet", [x], out, [1, classes]), t, left


def llama_decode(batch, past, layers=32, hidden=4096, heads=32, kv_heads=8, ffn=14336, vocab=128256):
    """One decode step of a Llama-style decoder (Hugging Face's LlamaModel layout): one new token per sequence
    against a KV cache of `past` tokens ("past", open), grouped-query attention, SwiGLU MLP, an lm_head.
    Returns the model, its tasks, and the (kernel, size) keys of the tasks whose size depends on the cache
    length (the attention over the cache)."""
    g, t = Graph(weights_as_inputs=True), Tasks()
    d = hidden // heads
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", 1])
    inputs = [ids]
    x = g.op("Gather", [g.weight([vocab, hidden], "embed"), "input_ids"], axis=0)
    varying = []

    def rms_norm(h):
        mean = g.op("ReduceMean", [g.op("Mul", [h, h])], axes=[-1], keepdims=1)
        return g.op("Mul", [g.op("Div", [h, g.op("Sqrt", [g.op("Add", [mean, g.const([1e-5], np.float32)])])]),
                            g.weight([hidden], "norm")])

    def linear(h, k, n):
        t.gemm(batch, n, k)
        return g.op("MatMul", [h, g.weight([k, n])])

    for layer in range(layers):
        h = rms_norm(x)
        q = g.op("Transpose", [g.op("Reshape", [linear(h, hidden, hidden), g.const([0, 0, heads, d])])],
                 perm=[0, 2, 1, 3])
        caches = []
        for name in ("key", "value"):
            new = g.op("Transpose", [g.op("Reshape", [linear(h, hidden, kv_heads * d), g.const([0, 0, kv_heads, d])])],
                       perm=[0, 2, 1, 3])
            past_name = f"past_{name}_{layer}"
            inputs.append(helper.make_tensor_value_info(past_name, TensorProto.FLOAT, ["batch", kv_heads, "past", d]))
            cache = g.op("Concat", [past_name, new], axis=2)
            grouped = g.op("Expand", [g.op("Unsqueeze", [cache, g.const([2])]), g.const([1, 1, heads // kv_heads, 1, 1])])
            caches.append(g.op("Reshape", [grouped, g.const([0, heads, -1, d])]))
        scores = g.op("MatMul", [q, g.op("Transpose", [caches[0]], perm=[0, 1, 3, 2])])
        t.gemm(1, past + 1, d, batch * heads)
        probs = g.op("Softmax", [g.op("Div", [scores, g.const([float(np.sqrt(d))], np.float32)])], axis=-1)
        context = g.op("MatMul", [probs, caches[1]])
        t.gemm(1, d, past + 1, batch * heads)
        varying += [("gemm", (("M", 1), ("N", past + 1), ("K", d))), ("gemm", (("M", 1), ("N", d), ("K", past + 1)))]
        merged = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), g.const([0, 0, hidden])])
        x = g.op("Add", [x, linear(merged, hidden, hidden)])
        h = rms_norm(x)
        gate = linear(h, hidden, ffn)
        up = linear(h, hidden, ffn)
        silu = g.op("Mul", [gate, g.op("Sigmoid", [gate])])
        x = g.op("Add", [x, linear(g.op("Mul", [silu, up]), ffn, hidden)])
    logits = linear(rms_norm(x), hidden, vocab)
    graph_inputs = inputs
    return g.model("llama_decode", graph_inputs, logits, ["batch", 1, vocab]), t, sorted(set(varying))


def dynamic_axes():
    g, t = Graph(), Tasks()
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "sequence", 32])
    h = g.op("MatMul", ["x", g.weight([32, 48])])
    out = g.op("Softmax", [h], axis=-1)
    return g.model("dynamic", [x], out, ["batch", "sequence", 48]), t


def write(outdir, name, model, expected, external=False, left=None):
    """Saves the model and its expected tasks; `left`: operators of the mapped types left out (strided
    convolutions), added to the count of the operators no kernel computes."""
    counts = {}
    for node in model.graph.node:
        if node.op_type not in ("MatMul", "Gemm", "Conv", "Softmax"):
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
    for reason, n in (left or {}).items():
        op = reason.split()[0]
        counts[op] = counts.get(op, 0) + n
    expected["left_out"] = counts
    path = os.path.join(outdir, name + ".onnx")
    if external:
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=name + ".onnx.data", size_threshold=0)
    else:
        onnx.save_model(model, path)
    with open(os.path.join(outdir, name + ".expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    return path


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "data", "onnx")
    os.makedirs(outdir, exist_ok=True)

    # BERT-style encoder layer: batch open ("batch"), bound to 2; the heads split by a Shape/Gather/Concat
    # chain, so only data propagation gives the Reshape its shape.
    model, t = encoder(1, 2, 24, 64, 4, 256, False, False, "batch", True)
    write(outdir, "bert_layer", model, t.json(args=["--batch", "2"]))

    # Two ResNet-style bottleneck blocks at 16 x 16: a strided first block with a projection, then an
    # identity block; a classifier Gemm with transB.
    model, t, left = resnet([(1, 16), (2, 32)], False, 10, False, 16, 64)
    write(outdir, "resnet_block", model, t.json(args=[]), left=left)

    model, t = dynamic_axes()
    tb = Tasks()
    tb.gemm(3 * 10, 48, 32)
    tb.add("softmax", {"rows": 30, "cols": 48})
    write(outdir, "dynamic_axes", model, tb.json(args=["--batch", "3", "--dim", "sequence=10"],
                                                 open_dims=["batch", "sequence"]))

    g, t = Graph(), Tasks()
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])
    h = g.op("MatMul", ["x", g.weight([64, 64])])
    t.gemm(4, 64, 64)
    path = write(outdir, "external_data", g.model("external", [x], h, [4, 64]), t.json(args=[]), external=True)

    resnet_path = os.path.join(outdir, "resnet_block.onnx")
    with open(resnet_path, "rb") as f:
        data = f.read()
    with open(os.path.join(outdir, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])

    # Published dimensions of the shipped workloads. BERT-base: 12 layers, hidden 768, 12 heads, FFN 3072,
    # batch 1, sequence 128, Q/K/V fused as the shipped file says. ResNet-50 v1.5 at 224 x 224.
    model, t = encoder(12, 1, 128, 768, 12, 3072, True, True, 1, False)
    write(outdir, "bert_base", model, t.json(["gemm"], args=["--kernels", "gemm"],
                                             shipped="resources/workloads/bert-base-gemm.json"),
          left={"Softmax (not asked for)": 12})
    model, t, left = resnet([(3, 64), (4, 128), (6, 256), (3, 512)], True, 1000, True, 224, 64)
    write(outdir, "resnet50", model, t.json(["conv2d"], args=["--kernels", "conv2d"],
                                            shipped="resources/workloads/resnet50-conv.json"),
          left=dict(left, **{"Gemm (not asked for)": 1}))

    # Llama-3-8B decode at batch 1 and 16 against a KV cache of 255 tokens: the shipped file holds the tasks
    # that do not vary with the cache length (the attention over the cache is left out there).
    for batch in (1, 16):
        model, t, varying = llama_decode(batch, 255)
        expected = t.json(["gemm"], args=["--kernels", "gemm", "--batch", str(batch), "--dim", "past=255"],
                          shipped="resources/workloads/llama3-8b-gemm.json", shipped_prefix=f"batch{batch}.",
                          shipped_leaves_out=[dict(size) for _, size in varying])
        if batch == 1:
            write(outdir, "llama3_8b_decode", model, expected, left={"Softmax (not asked for)": 32})
        else:
            with open(os.path.join(outdir, "llama3_8b_decode_batch16.expected.json"), "w") as f:
                json.dump(dict(expected, model="llama3_8b_decode.onnx"), f, indent=1)
                f.write("\n")


if __name__ == "__main__":
    main()
