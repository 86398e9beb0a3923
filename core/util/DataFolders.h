#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ts {

// The folders of a colon-separated path variable ($TUNESCOPE_KERNEL_PATH, $TUNESCOPE_DATASET_PATH), empty
// items left out; none when the variable is unset or empty.
std::vector<std::filesystem::path> pathListOf(const char* variable);

// <user data folder>/tunescope/<name>: $XDG_DATA_HOME/tunescope/<name>, else
// ~/.local/share/tunescope/<name>; empty when neither variable is set.
std::filesystem::path userDataFolder(const std::string& name);

} // namespace ts
