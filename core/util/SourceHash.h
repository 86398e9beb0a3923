#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ts {

// Content hashes that bind records to the code that was measured: "fnv1a64:<16 hex digits>". Not a
// cryptographic hash; it tells "the kernel source changed since these configs were tuned".
class SourceHash {
public:
    static std::string ofText(std::string_view text);
    // Throws Error naming the file when it cannot be read.
    static std::string ofFile(const std::filesystem::path& path);
};

} // namespace ts
