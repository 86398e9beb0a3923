#pragma once

namespace ts {

// The constraint interpreter of a generated header (DeploymentHeader), as C++17 source text: the same
// stack machine as tunescope::constraint::holds of tunescope/runtime.h, over the header's constexpr tables
// (kCode, kChecks, kParams) and without allocation (a stack of kStackDepth values). It is plain text with no
// part of any deployment in it: the deployment reaches the header only as table data.
extern const char* const kDeploymentHeaderChecks;

} // namespace ts
