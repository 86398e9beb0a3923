#include "kernels/ProblemSizeJson.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace ts {

std::optional<ProblemSize> parseProblemJson(const KernelSpec& spec, const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return std::nullopt;
    ProblemSize size = spec.defaultSize();
    for (const auto& [name, value] : j.items()) {
        const auto found = std::find_if(spec.problem.begin(), spec.problem.end(),
                                        [&](const ProblemParameter& p) { return p.name == name; });
        if (found == spec.problem.end() || !value.is_number_integer() || value.get<std::int64_t>() <= 0)
            return std::nullopt;
        size[static_cast<std::size_t>(found - spec.problem.begin())] = value.get<std::int64_t>();
    }
    return size;
}

} // namespace ts
