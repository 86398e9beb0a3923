#include "util/SourceHash.h"

#include "util/Error.h"

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <iterator>

namespace ts {

std::string SourceHash::ofText(std::string_view text) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL;
    }
    return fmt::format("fnv1a64:{:016x}", hash);
}

std::string SourceHash::ofFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(fmt::format("Cannot read {} to hash it.", path.string()));
    const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return ofText(content);
}

} // namespace ts
