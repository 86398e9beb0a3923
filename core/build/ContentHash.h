#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace ts {

// A 128-bit hash of everything a build depends on, as 32 hex digits. Not cryptographic: it names cache
// entries. Each added item is length-prefixed, so ("ab", "c") and ("a", "bc") differ.
class ContentHash {
public:
    ContentHash& add(std::string_view bytes);
    ContentHash& add(std::int64_t number);
    // The file's bytes. Throws Error naming the file when it cannot be read.
    ContentHash& addFile(const std::filesystem::path& file);
    std::string hex() const;

private:
    void mix(std::string_view bytes);

    std::uint64_t m_a = 0xcbf29ce484222325ull; // FNV-1a offset basis
    std::uint64_t m_b = 0x84222325cbf29ce4ull; // second lane, different basis and multiplier
};

} // namespace ts
