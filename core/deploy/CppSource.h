#pragma once

#include <string>
#include <string_view>

namespace ts {

// Text that generated C++ source may hold. Whatever the input, the output is plain ASCII that no translation
// phase (trigraphs, universal character names, line splicing, comments, macros) reads as anything but what
// it says.
class CppSource {
public:
    // A `std::string_view("...", N)` expression of any bytes: quotes, backslashes and '?' (so no trigraph
    // can form) are escaped, every byte outside printable ASCII is an octal escape, and the explicit length
    // keeps embedded NUL bytes.
    static std::string stringView(std::string_view text);

    // Throws Error with one sentence unless `space` can name a namespace of a generated header: one or more
    // identifiers joined by "::", none a keyword, alternative token (and, bitor, ...), reserved identifier
    // (__ anywhere, _ and a capital, _ first at global scope), reserved namespace (std, std2, posix), or a
    // macro that compilers or the standard library predefine (linux, unix, errno, assert, ...).
    static void checkNamespace(const std::string& space);
};

} // namespace ts
