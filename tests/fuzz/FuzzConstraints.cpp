// libFuzzer target: the constraint compiler (ConstraintProgram) and the enumeration of a small space under
// arbitrary constraints, one per line. Bad constraints must end in ts::Error, never a crash or a hang.
#include "space/SearchSpace.h"
#include "util/Error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> constraints;
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    while (!rest.empty()) {
        const std::size_t end = std::min(rest.find('\n'), rest.size());
        constraints.emplace_back(rest.substr(0, end));
        rest.remove_prefix(std::min(end + 1, rest.size()));
    }
    std::vector<ts::Parameter> parameters{
        {"x",
         ts::ParameterType::Integer,
         {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}}},
        {"y", ts::ParameterType::Real, {1.5, 2.5, -3.0}},
        {"b", ts::ParameterType::Bool, {false, true}},
        {"s", ts::ParameterType::String, {std::string("row"), std::string("col")}},
    };
    try {
        const ts::SearchSpace space(std::move(parameters), std::move(constraints));
        (void)space.validCount();
    } catch (const ts::Error&) {
    }
    return 0;
}
