#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ts {

// True when the bytes start with the gzip magic (1f 8b).
bool isGzipped(std::string_view bytes);

// Inflates gzip data (concatenated members allowed). sourceName only names the input in errors.
// Throws Error when the data is corrupt or ends early.
// With `limit`, inflation stops once that many bytes are out (the result may be a little longer): a prefix.
std::string gunzip(std::string_view bytes, const std::filesystem::path& sourceName,
                   std::size_t limit = std::string::npos);

// The whole content of a file, gunzipped when it is gzip data whatever its extension.
// Throws Error naming the file when it is missing, unreadable or corrupt.
// With `limit`, only (about) the first `limit` bytes of the content: a prefix, e.g. a file's header.
std::string readMaybeGzippedFile(const std::filesystem::path& path, std::size_t limit = std::string::npos);

} // namespace ts
