#include "build/ContentHash.h"

#include "util/Error.h"

#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace ts {

namespace {

// splitmix64 finaliser: spreads the lanes' last bytes over all bits.
std::uint64_t finalise(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

} // namespace

void ContentHash::mix(std::string_view bytes) {
    for (unsigned char c : bytes) {
        m_a = (m_a ^ c) * 0x100000001b3ull;
        m_b = (m_b ^ c) * 0x9e3779b97f4a7c15ull + 0x7f4a7c15ull;
    }
}

ContentHash& ContentHash::add(std::string_view bytes) {
    std::string length = fmt::format("{}:", bytes.size());
    mix(length);
    mix(bytes);
    return *this;
}

ContentHash& ContentHash::add(std::int64_t number) {
    return add(std::to_string(number));
}

ContentHash& ContentHash::addFile(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw Error(fmt::format("Cannot read {} to hash it.", file.string()));
    std::ostringstream text;
    text << in.rdbuf();
    return add(text.str());
}

std::string ContentHash::hex() const {
    return fmt::format("{:016x}{:016x}", finalise(m_a ^ (m_b >> 1)), finalise(m_b + m_a));
}

} // namespace ts
