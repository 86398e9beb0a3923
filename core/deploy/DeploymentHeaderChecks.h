#pragma once

#include <string>

namespace ts {

// The constraint interpreter of a generated header (DeploymentHeader), as C++17 source text: the values and
// Python arithmetic of tunescope/constraint_values.h (its embedded part, copied by the build), then the same
// stack machine as tunescope::constraint::holds of tunescope/runtime.h, over the header's constexpr tables
// (kCode, kChecks, kParams) and without allocation (a stack of kStackDepth values). It is plain text with no
// part of any deployment in it: the deployment reaches the header only as table data.
std::string deploymentHeaderChecks();

} // namespace ts
