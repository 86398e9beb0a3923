#pragma once

namespace ts {

// The embedded part of tunescope/constraint_values.h as text, for generated deployment headers. Defined in a
// source the build writes from that file (core/CMakeLists.txt), so the two can never drift apart.
extern const char* const kConstraintValues;

} // namespace ts
