#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ts {

// True when the bytes start with the gzip magic (1f 8b).
bool isGzipped(std::string_view bytes);

// Inflates gzip data (concatenated members allowed). sourceName only names the input in errors.
// Throws Error when the data is corrupt or ends early.
std::string gunzip(std::string_view bytes, const std::filesystem::path& sourceName);

// The whole content of a file, gunzipped when it is gzip data whatever its extension.
// Throws Error naming the file when it is missing, unreadable or corrupt.
std::string readMaybeGzippedFile(const std::filesystem::path& path);

} // namespace ts
