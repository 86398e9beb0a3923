#include "cuda/NamedMacros.h"

#include <cctype>
#include <unordered_set>

namespace ts {

namespace {

bool startsIdentifier(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool continuesIdentifier(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// NAME of -DNAME or -DNAME=value; empty when the flag is not a macro definition.
std::string_view macroName(std::string_view flag) {
    if (flag.size() < 3 || flag.substr(0, 2) != "-D" || !startsIdentifier(flag[2]))
        return {};
    std::size_t end = 3;
    while (end < flag.size() && continuesIdentifier(flag[end]))
        ++end;
    if (end < flag.size() && flag[end] != '=')
        return {};
    return flag.substr(2, end - 2);
}

} // namespace

std::vector<std::string> macrosNamedIn(std::span<const std::string> macros,
                                       std::span<const std::string> texts) {
    std::unordered_set<std::string_view> wanted;
    for (const std::string& flag : macros)
        if (const std::string_view name = macroName(flag); !name.empty())
            wanted.insert(name);
    std::unordered_set<std::string_view> named;
    for (const std::string& text : texts) {
        for (std::size_t i = 0; i < text.size() && named.size() < wanted.size();) {
            if (!startsIdentifier(text[i]) || (i > 0 && continuesIdentifier(text[i - 1]))) {
                ++i;
                continue;
            }
            std::size_t end = i + 1;
            while (end < text.size() && continuesIdentifier(text[end]))
                ++end;
            const std::string_view identifier(text.data() + i, end - i);
            if (wanted.count(identifier))
                named.insert(identifier);
            i = end;
        }
    }
    std::vector<std::string> kept;
    kept.reserve(macros.size());
    for (const std::string& flag : macros) {
        const std::string_view name = macroName(flag);
        if (name.empty() || named.count(name))
            kept.push_back(flag);
    }
    return kept;
}

} // namespace ts
