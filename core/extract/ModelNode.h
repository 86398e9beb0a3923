#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// One dimension of a tensor after shape inference: a value, or a symbol the model leaves open ("batch",
// "sequence"), or nothing known.
struct ModelDim {
    std::optional<std::int64_t> value;
    std::string symbol; // with no value: the model's name for it, or empty when inference knows nothing
};

// A tensor's shape after shape inference; `known` is false when not even the rank is known.
struct ModelShape {
    bool known = false;
    std::vector<ModelDim> dims;
    // The dimensions when every one has a value.
    std::optional<std::vector<std::int64_t>> values() const;
};

// An operator of a model's main graph, as the task extraction reads it: its type, the shapes of its inputs
// (absent optional inputs are unknown shapes) and its integer and text attributes.
struct ModelNode {
    std::string name; // the node's name, or "<op type> #<position>" when the model gives none
    std::string opType;
    std::string domain; // "" for ONNX's default operator set
    std::vector<ModelShape> inputs;
    std::map<std::string, std::vector<std::int64_t>> ints; // int and ints attributes
    std::map<std::string, std::string> strings;            // string attributes
    std::int64_t intOr(const std::string& attribute, std::int64_t fallback) const;
};

} // namespace ts
