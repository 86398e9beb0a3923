#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace ts {

// Generates a self-contained C++17 header from a deployment JSON (DeploymentBuilder): constexpr tables of the
// entries and defaults and a `lookup` function applying the rules of tunescope/runtime.h (exact,
// architecture, nearest_shape, default, none). It includes only standard headers, so it compiles on its own
// anywhere.
class DeploymentHeader {
public:
    // `space` names the C++ namespace of the generated code ("a" or "a::b"); throws Error unless
    // CppSource::checkNamespace accepts it. Every name and value is emitted as data no preprocessor phase
    // reads.
    static std::string generate(const nlohmann::ordered_json& deployment,
                                const std::string& space = "tunescope_tuned");
};

} // namespace ts
