#pragma once

#include <optional>
#include <string>

namespace ts {

// How strategies count a space (design.md): Constrained shows only configs that satisfy the constraints;
// Product shows the whole cartesian product and validity is learned by measuring.
enum class SpaceMode { Constrained, Product };

// Which configs count as neighbours: Hamming = differ in exactly one parameter; Adjacent = one step up or
// down in the value list of exactly one parameter.
enum class Neighbourhood { Hamming, Adjacent };

const char* toString(SpaceMode mode);
std::optional<SpaceMode> spaceModeFromString(const std::string& text);

} // namespace ts
