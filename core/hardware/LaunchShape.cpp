#include "hardware/LaunchShape.h"

#include "kernels/KernelSizes.h"
#include "space/Expression.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <cmath>

namespace ts {

namespace {

std::int64_t evaluate(const std::string& text, const Expression::Lookup& lookup, std::int64_t minimum,
                      const KernelSpace& space, SearchSpace::Index index, const char* role) {
    const Value value = Expression::parse(text, role).evaluate(lookup);
    const double number = isNumeric(value) ? toNumber(value) : std::nan("");
    if (!(number >= double(minimum)) || number != std::floor(number) || number > 9.0e15)
        throw Error(
            fmt::format("Kernel {}: the {} \"{}\" gives {} for config [{}], not a whole number >= {}.",
                        space.kernelName(), role, text, toString(value), space.space().key(index), minimum));
    return static_cast<std::int64_t>(number);
}

} // namespace

LaunchShape LaunchShape::of(const KernelSpec& spec, const KernelSpace& space, SearchSpace::Index index) {
    const Config config = space.space().config(index);
    const auto& parameters = space.space().parameters();
    const Expression::Lookup sizes = problemLookup(spec, space.size());
    const Expression::Lookup lookup = [&](std::string_view name) -> std::optional<Value> {
        for (std::size_t i = 0; i < parameters.size(); ++i)
            if (parameters[i].name == name)
                return config[i];
        return sizes(name);
    };
    const KernelVariant& variant = space.variant();
    LaunchShape shape;
    for (std::size_t d = 0; d < variant.grid.size() && d < 3; ++d)
        shape.grid[d] = evaluate(variant.grid[d], lookup, 1, space, index, "grid expression");
    for (std::size_t d = 0; d < variant.block.size() && d < 3; ++d)
        shape.block[d] = evaluate(variant.block[d], lookup, 1, space, index, "block expression");
    if (!variant.dynamicSharedBytes.empty())
        shape.dynamicSharedBytes =
            evaluate(variant.dynamicSharedBytes, lookup, 0, space, index, "dynamic shared memory expression");
    return shape;
}

} // namespace ts
